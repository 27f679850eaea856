package io.tollgate.rules.api;

import static io.restassured.RestAssured.given;
import static io.tollgate.rules.Api.ADMIN;
import static io.tollgate.rules.Api.reading;
import static io.tollgate.rules.Directory.digest;
import static io.tollgate.rules.Directory.importClients;
import static io.tollgate.rules.Directory.key;
import static io.tollgate.rules.Directory.putTenant;
import static io.tollgate.rules.Directory.seq;
import static io.tollgate.rules.Directory.tenantId;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.startsWith;

import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import io.tollgate.rules.Directory;
import io.tollgate.rules.TestDatabase;

/**
 * The bulk import ({@code PUT /api/v1/clients}, NDJSON): all-or-nothing with every bad line named, the dry run,
 * re-imports that change only what differs, and the bounds (the test profile's: 50,000 lines, 8 MB).
 */
@QuarkusTest
@WithTestResource(value = TestDatabase.class, scope = TestResourceScope.GLOBAL)
class ClientImportTest {

    private String tenant;

    @BeforeEach
    void tenantAndRules() {
        Directory.rules();
        tenant = tenantId("bulk");
        putTenant(tenant, "{\"plan\": \"pro\"}").then().statusCode(201);
    }

    @Test
    void aBadLineChangesNothingAndEveryBadLineIsNamed() {
        String good = key("good");
        String ndjson = String.join("\n",
                line(good, "\"tenant\": \"" + tenant + "\", \"plan\": \"free\""),
                line(key("plan"), "\"plan\": \"gold\""),
                line(key("fine"), "\"label\": \"fine\""),
                line(key("tenant"), "\"tenant\": \"no-such-tenant\""),
                "{\"tenant\": \"" + tenant + "\"}",
                "{\"key\": \"ak_cut_short\", ",
                line(good, "\"plan\": \"pro\""),
                "",
                line(key("limit"), "\"overrides\": {\"dir.orders\": {\"limit\": -5}}"),
                line(key("field"), "\"colour\": \"red\""));
        long before = seq();

        Response refused = importClients(ndjson, false);
        refused.then().statusCode(422)
                .contentType("application/problem+json")
                .body("type", is("validation-failed"))
                .body("detail", startsWith("7 error(s)"));
        assertThat(refused.jsonPath().getList("errors", java.util.Map.class))
                .extracting(e -> e.get("line") + ":" + e.get("field"))
                .containsExactly("2:plan", "4:tenant", "5:key", "6:", "7:key", "9:overrides.dir.orders.limit",
                        "10:colour");
        assertThat(refused.jsonPath().getString("errors.find { it.line == 7 }.reason")).isEqualTo(
                "repeats the key of line 1");
        assertThat(seq()).as("nothing changed").isEqualTo(before);
        reading().header("X-API-Key", good).get("/api/v1/clients/key").then().statusCode(404);
    }

    @Test
    void aDryRunCountsAndChangesNothingThenTheImportChangesOnlyWhatDiffers() {
        List<String> keys = List.of(key("a"), key("b"), key("c"));
        String ndjson = keys.stream().map(k -> line(k, "\"tenant\": \"" + tenant + "\", \"label\": \"" + k + "\""))
                .collect(Collectors.joining("\n", "", "\n"));
        long before = seq();

        importClients(ndjson, true).then().statusCode(200)
                .body("dry_run", is(true)).body("lines", is(3)).body("created", is(3)).body("changed", is(0))
                .body("unchanged", is(0)).body("seq", is((int) before));
        assertThat(seq()).as("a dry run changes nothing").isEqualTo(before);
        reading().header("X-API-Key", keys.get(0)).get("/api/v1/clients/key").then().statusCode(404);

        importClients(ndjson, false).then().statusCode(200)
                .body("dry_run", is(false)).body("created", is(3)).body("seq", is((int) before + 3));
        assertThat(seq()).isEqualTo(before + 3);
        importClients(ndjson, false).then().statusCode(200)
                .body("dry_run", is(false)).body("created", is(0)).body("changed", is(0)).body("unchanged", is(3))
                .body("seq", is((int) before + 3));
        reading().header("X-API-Key", keys.get(1)).get("/api/v1/clients/key").then().statusCode(200)
                .header("ETag", "\"" + (before + 2) + "\"")
                .body("digest", is(digest(keys.get(1)))).body("tenant", is(tenant));
        reading().header("X-API-Key", keys.get(1)).get("/api/v1/clients/key/history").then().statusCode(200)
                .body("revisions[0].operation", is("create")).body("revisions[0].actor", is("admin"));

        String again = ndjson.replace("\"label\": \"" + keys.get(2) + "\"", "\"label\": \"renamed\"");
        importClients(again, false).then().statusCode(200)
                .body("created", is(0)).body("changed", is(1)).body("unchanged", is(2))
                .body("seq", is((int) before + 4));
        reading().header("X-API-Key", keys.get(2)).get("/api/v1/clients/key").then().body("label", is("renamed"))
                .header("ETag", "\"" + (before + 4) + "\"");
    }

    @Test
    void manyBatchesImportInOneGo() {
        int count = 20_000;
        String ndjson = IntStream.range(0, count)
                .mapToObj(i -> line("ak_many_" + tenant + "_" + i, "\"tenant\": \"" + tenant + "\""))
                .collect(Collectors.joining("\n"));
        long before = seq();
        importClients(ndjson, false).then().statusCode(200).body("created", is(count));
        assertThat(seq()).isEqualTo(before + count);
        reading().header("X-API-Key", "ak_many_" + tenant + "_12345").get("/api/v1/clients/key").then().statusCode(200)
                .body("tenant", is(tenant));
    }

    @Test
    void tooManyLinesIs413AndChangesNothing() {
        String ndjson = IntStream.range(0, 50_001).mapToObj(i -> line("ak_over_" + i, "\"label\": \"x\""))
                .collect(Collectors.joining("\n"));
        long before = seq();
        importClients(ndjson, false).then().statusCode(413).contentType("application/problem+json")
                .body("detail", startsWith("an import may have at most 50000 lines"));
        assertThat(seq()).isEqualTo(before);
    }

    @Test
    void aBodyOverTheBoundIs413AndChangesNothing() {
        String label = "x".repeat(190);
        String ndjson = IntStream.range(0, 40_000).mapToObj(i -> line("ak_big_" + i, "\"label\": \"" + label + "\""))
                .collect(Collectors.joining("\n"));
        assertThat(ndjson.length()).isGreaterThan(8 * 1024 * 1024);
        long before = seq();
        importClients(ndjson, false).then().statusCode(413).contentType("application/problem+json");
        String longLine = line("ak_long", "\"label\": \"" + "y".repeat(70_000) + "\"");
        importClients(longLine, false).then().statusCode(413).body("detail", startsWith("line 1 is longer"));
        assertThat(seq()).isEqualTo(before);
    }

    @Test
    void malformedNdjsonIs422NamingTheLine() {
        long before = seq();
        importClients(line(key("ok"), "\"label\": \"ok\"") + "\nnot json at all\n[1]\n{\"key\": \"a\"} {\"key\": \"b\"}",
                false)
                .then().statusCode(422)
                .body("errors.line", org.hamcrest.Matchers.contains(2, 3, 4))
                .body("errors[0].reason", startsWith("not valid JSON"));
        assertThat(seq()).isEqualTo(before);
    }

    @Test
    void onlyNdjsonIsAnImport() {
        given().header("Authorization", ADMIN).contentType("application/json").body("[]").put("/api/v1/clients")
                .then().statusCode(415).contentType("application/problem+json");
    }

    private static String line(String key, String fields) {
        return "{\"key\": \"" + key + "\", " + fields + "}";
    }
}
