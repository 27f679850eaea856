package io.tollgate.rules.http;

import static io.tollgate.rules.Api.ADMIN;
import static io.tollgate.rules.Api.as;
import static io.tollgate.rules.Api.reading;
import static io.tollgate.rules.Directory.importClients;
import static io.tollgate.rules.Directory.putClient;
import static io.tollgate.rules.Directory.putTenant;
import static io.tollgate.rules.Directory.query;
import static io.tollgate.rules.Directory.tenantId;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import io.tollgate.rules.Directory;
import io.tollgate.rules.TestDatabase;

/**
 * The raw API key appears nowhere: not in PostgreSQL (every table of the schema dumped as text), not in the
 * service's log (a handler on the root logger of the service under test), not in any HTTP answer (bodies and
 * headers, errors and history included), whichever way the key came in (its header, a refused path or explain
 * query, bulk line, bad bulk line).
 */
@QuarkusTest
@WithTestResource(value = TestDatabase.class, scope = TestResourceScope.GLOBAL)
class RawKeyTest {

    private final List<String> logged = new CopyOnWriteArrayList<>();
    private final List<String> answers = new ArrayList<>();
    private final Handler capture = new Handler() {

        private final SimpleFormatter format = new SimpleFormatter();

        @Override
        public void publish(LogRecord record) {
            logged.add(format.format(record));
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    @BeforeEach
    void captureTheLog() {
        Directory.rules();
        Logger.getLogger("").addHandler(capture);
    }

    @AfterEach
    void stopCapturing() {
        Logger.getLogger("").removeHandler(capture);
    }

    @Test
    void theRawKeyIsNeverStoredLoggedNorAnswered() {
        String secret = "ak_RAWSECRET" + UUID.randomUUID().toString().replace("-", "");
        List<String> keys = List.of(secret, secret + "_bulk", secret + "_badplan", secret + "_cut", secret + "_dup");
        String tenant = tenantId("raw");
        keep(putTenant(tenant, "{\"label\": \"raw\"}"));

        keep(putClient(secret, "{\"tenant\": \"" + tenant + "\", \"plan\": \"pro\", \"label\": \"the raw one\"}"));
        keep(reading().header("X-API-Key", secret).get("/api/v1/clients/key"));
        keep(reading().get("/api/v1/clients/" + secret));
        keep(as(ADMIN).header("X-API-Key", secret).header("If-Match", "\"1\"").body("{\"label\": \"x\"}")
                .put("/api/v1/clients/key"));
        keep(as(ADMIN).header("If-Match", "\"1\"").body("{\"label\": \"x\"}").put("/api/v1/clients/" + secret));
        keep(putClient(secret, "{\"plan\": \"gold\", \"colour\": \"red\"}"));
        keep(putClient(secret, "{\"key\": \"" + secret + "\"}"));
        keep(putClient(secret, secret));
        keep(as(ADMIN).header("X-API-Key", secret).header("If-Match", "\"1\"").delete("/api/v1/clients/key"));
        keep(as(ADMIN).header("If-Match", "\"1\"").delete("/api/v1/clients/" + secret));
        keep(putClient(secret + "x".repeat(5000), "{}"));
        keep(reading().header("X-API-Key", secret).get("/api/v1/clients/key/history"));
        keep(reading().get("/api/v1/clients/" + secret + "/history"));
        keep(reading().get("/api/v1/explain?path=/x&api_key=" + secret));
        keep(reading().queryParam("tenant", tenant).get("/api/v1/clients"));

        keep(importClients(String.join("\n",
                "{\"key\": \"" + keys.get(1) + "\", \"tenant\": \"" + tenant + "\"}",
                "{\"key\": \"" + keys.get(2) + "\", \"plan\": \"gold\"}",
                "{\"key\": \"" + keys.get(3) + "\", ",
                "{\"key\": \"" + keys.get(4) + "\"}",
                "{\"key\": \"" + keys.get(4) + "\"}",
                "{\"key\": " + secret.length() + ", \"label\": \"" + keys.get(1) + "\"}"), false));
        keep(importClients("{\"key\": \"" + keys.get(1) + "\", \"tenant\": \"" + tenant + "\"}", true));
        keep(importClients("{\"key\": \"" + keys.get(1) + "\", \"tenant\": \"" + tenant + "\"}", false));
        keep(reading().header("X-API-Key", keys.get(1)).get("/api/v1/clients/key/history"));
        keep(as(ADMIN).header("X-API-Key", secret).delete("/api/v1/clients/key"));
        keep(reading().queryParam("since", 0).queryParam("limit", 50_000).get("/api/v1/directory"));

        assertThat(answers).as("the answers were read").hasSizeGreaterThan(15);
        assertThat(logged).as("the log is captured").anyMatch(l -> l.contains("client import by admin"));
        for (String key : keys) {
            assertThat(answers).noneMatch(a -> a.contains(key));
            assertThat(logged).noneMatch(l -> l.contains(key));
            assertThat(database()).noneMatch(row -> row.contains(key));
        }
        assertThat(database()).anyMatch(row -> row.contains(Directory.digest(secret)));
    }

    private void keep(Response response) {
        answers.add(response.getStatusLine() + "\n" + response.getHeaders() + "\n" + response.asString());
    }

    /** Every row of every table of the schema, as text. */
    private static List<String> database() {
        List<String> rows = new ArrayList<>();
        for (String table : query("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")) {
            rows.addAll(query("SELECT t::text FROM \"" + table + "\" t"));
        }
        return rows;
    }
}
