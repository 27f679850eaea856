package io.tollgate.rules.api;

import static io.restassured.RestAssured.given;
import static io.tollgate.rules.Api.ADMIN;
import static io.tollgate.rules.Api.as;
import static io.tollgate.rules.Api.reading;
import static io.tollgate.rules.Api.version;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.is;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import io.tollgate.rules.TestDatabase;

/** PUT /api/v1/rules: the whole set, one transaction, one version; dry run writes nothing. */
@QuarkusTest
@WithTestResource(value = TestDatabase.class, scope = TestResourceScope.GLOBAL)
class ImportTest {

    private static final String FIRST = """
            rules:
              - {id: imp.keep, key: ip, limit: 1, period: 1s}
              - {id: imp.change, key: ip, limit: 1, period: 1s}
              - {id: imp.drop, key: ip, limit: 1, period: 1s}
            """;
    private static final String SECOND = """
            version: 99
            rules:
              - {id: imp.keep, key: ip, limit: 1, period: 1s}
              - {id: imp.change, key: ip, limit: 2, period: 1s}
              - {id: imp.new, key: global, limit: 5, period: 1m}
            """;

    @Test
    void appliesAWholeSetInOneVersion() {
        yaml(FIRST, false).then().statusCode(200);
        long before = version();

        Response dry = yaml(SECOND, true);
        dry.then()
                .statusCode(200)
                .body("dry_run", is(true))
                .body("version", is((int) before + 1))
                .body("created", contains("imp.new"))
                .body("changed", contains("imp.change"))
                .body("deleted", contains("imp.drop"))
                .body("unchanged", contains("imp.keep"));
        assertThat(version()).as("a dry run writes nothing").isEqualTo(before);
        reading().get("/api/v1/rules/imp.drop").then().statusCode(200);

        yaml(SECOND, false).then()
                .statusCode(200)
                .body("dry_run", is(false))
                .body("version", is((int) before + 1))
                .body("created", contains("imp.new"))
                .body("changed", contains("imp.change"))
                .body("deleted", contains("imp.drop"));
        assertThat(version()).as("one import, one version").isEqualTo(before + 1);
        assertThat(reading().get("/api/v1/rules").jsonPath().getList("rules.id", String.class))
                .containsExactly("imp.change", "imp.keep", "imp.new");
        reading().get("/api/v1/rules/imp.drop/history").then().body("revisions[-1].operation", is("delete"))
                .body("revisions[-1].version", is((int) before + 1));

        yaml(SECOND, false).then().statusCode(200).body("version", is((int) before + 1))
                .body("created", empty()).body("changed", empty()).body("deleted", empty());
        assertThat(version()).as("an import that changes nothing is no change").isEqualTo(before + 1);
    }

    @Test
    void acceptsJsonAndHonoursIfMatch() {
        String set = "{\"rules\": [{\"id\": \"imp.json\", \"key\": \"ip\", \"limit\": 3, \"period\": \"10s\"}]}";
        long before = version();

        as(ADMIN).header("If-Match", "\"" + (before + 5) + "\"").body(set).put("/api/v1/rules").then()
                .statusCode(412).contentType("application/problem+json");
        assertThat(version()).isEqualTo(before);

        as(ADMIN).header("If-Match", "\"" + before + "\"").body(set).put("/api/v1/rules").then().statusCode(200);
        assertThat(reading().get("/api/v1/rules").jsonPath().getList("rules.id", String.class))
                .isEqualTo(List.of("imp.json"));
    }

    private static Response yaml(String body, boolean dryRun) {
        return given().header("Authorization", ADMIN)
                .contentType("application/yaml")
                .queryParam("dry_run", dryRun)
                .body(body.getBytes(java.nio.charset.StandardCharsets.UTF_8))
                .put("/api/v1/rules");
    }
}
