package io.tollgate.rules.api;

import static io.tollgate.rules.Api.ADMIN;
import static io.tollgate.rules.Api.as;
import static io.tollgate.rules.Api.reading;
import static io.tollgate.rules.Directory.importClients;
import static io.tollgate.rules.Directory.putTenant;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.oneOf;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;

import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.tollgate.rules.TestDatabase;
import io.tollgate.rules.domain.RuleCodec;
import io.tollgate.rules.domain.WireFormat;

/**
 * The demo's files load as {@code ./tollgate up} loads them: its rule set passes the declarative import's dry
 * run, and with its rules in force its tenants and its client import are accepted.
 */
@QuarkusTest
@WithTestResource(value = TestDatabase.class, scope = TestResourceScope.GLOBAL)
class DemoFilesTest {

    private static final Path DEMO = Path.of("../demo");

    @Test
    void theDemoRulesTenantsAndClientsLoad() throws IOException {
        byte[] rules = Files.readAllBytes(DEMO.resolve("rules.yaml"));
        as(ADMIN).contentType("application/yaml").body(rules).put("/api/v1/rules?dry_run=true")
                .then().statusCode(200).body("dry_run", is(true));
        // the set itself would replace the other tests' rules: its rules go in one by one
        RuleCodec codec = new RuleCodec();
        for (var rule : codec.parseRuleSet(rules, WireFormat.YAML).rules()) {
            as(ADMIN).contentType("application/json").body(codec.write(rule)).put("/api/v1/rules/" + rule.id())
                    .then().statusCode(oneOf(200, 201));
        }
        try (DirectoryStream<Path> tenants = Files.newDirectoryStream(DEMO.resolve("tenants"), "*.json")) {
            for (Path tenant : tenants) {
                String id = tenant.getFileName().toString().replace(".json", "");
                putTenant(id, Files.readString(tenant)).then().statusCode(oneOf(200, 201));
            }
        }
        String clients = Files.readString(DEMO.resolve("clients.ndjson"));
        importClients(clients, false).then().statusCode(200).body("lines", is((int) clients.lines().count()));
        reading().header("X-API-Key", "ak_acme_batch").get("/api/v1/clients/key").then().statusCode(200)
                .body("tenant", is("acme"))
                .body("overrides.'orders.write'.limit", is(5));
    }
}
