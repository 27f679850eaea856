package io.tollgate.rules.api;

import static io.tollgate.rules.Api.ADMIN;
import static io.tollgate.rules.Api.as;
import static io.tollgate.rules.Directory.key;
import static io.tollgate.rules.Directory.putClient;
import static io.tollgate.rules.Directory.seq;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.hasItems;
import static org.hamcrest.Matchers.is;

import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import io.tollgate.rules.Directory;
import io.tollgate.rules.TestDatabase;

/**
 * Each way a directory entry is refused, as its own named case: a 422 problem+json naming the field, and the
 * directory's seq does not move.
 */
@QuarkusTest
@WithTestResource(value = TestDatabase.class, scope = TestResourceScope.GLOBAL)
class DirectoryValidationTest {

    @BeforeEach
    void rules() {
        Directory.rules();
    }

    static Stream<Arguments> entries() {
        return Stream.of(
                client("unknown-tenant", "{\"tenant\": \"no-such-tenant\"}", "tenant"),
                client("override-of-missing-rule", "{\"overrides\": {\"no.such.rule\": {\"limit\": 1}}}",
                        "overrides.no.such.rule"),
                client("override-of-tenant-rule", "{\"overrides\": {\"dir.tenant\": {\"limit\": 1}}}",
                        "overrides.dir.tenant"),
                client("negative-limit", "{\"overrides\": {\"dir.orders\": {\"limit\": -1}}}",
                        "overrides.dir.orders.limit"),
                client("zero-burst", "{\"overrides\": {\"dir.orders\": {\"burst\": 0}}}",
                        "overrides.dir.orders.burst"),
                client("bad-period", "{\"overrides\": {\"dir.orders\": {\"period\": \"soon\"}}}",
                        "overrides.dir.orders.period"),
                client("unknown-plan", "{\"plan\": \"gold\"}", "plan"),
                client("odd-plan-name", "{\"plan\": \"Gold Plan!\"}", "plan"),
                client("label-too-long", "{\"label\": \"" + "x".repeat(201) + "\"}", "label"),
                client("unknown-field", "{\"colour\": \"red\"}", "colour"),
                client("tenant-not-string", "{\"tenant\": 7}", "tenant"),
                client("not-an-object", "[1, 2]", ""),
                client("malformed-json", "{\"plan\": ", ""),
                client("empty-body", "", ""),
                tenant("Bad_Id", "{}", "id"),
                tenant("override-of-client-rule", "{\"overrides\": {\"dir.orders\": {\"limit\": 1}}}",
                        "overrides.dir.orders"),
                tenant("unknown-plan", "{\"plan\": \"gold\"}", "plan"),
                tenant("client-field", "{\"tenant\": \"x\"}", "tenant"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("entries")
    void aBadEntryIs422NamingTheField(String name, String path, String body, String field) {
        long before = seq();
        Response response = as(ADMIN).body(body).put(path);
        response.then().statusCode(422)
                .contentType("application/problem+json")
                .body("type", is("validation-failed"))
                .body("status", is(422))
                .body("errors.field", hasItem(field));
        assertThat(response.jsonPath().getList("errors.reason", String.class)).allMatch(r -> !r.isBlank());
        assertThat(seq()).as("a refused entry changes nothing").isEqualTo(before);
    }

    private static Arguments client(String name, String body, String field) {
        return Arguments.of("client " + name, "/api/v1/clients/digest/" + Directory.digest(key(name)), body, field);
    }

    private static Arguments tenant(String id, String body, String field) {
        return Arguments.of("tenant " + id, "/api/v1/tenants/" + id, body, field);
    }

    @Test
    void everyBadFieldIsNamedAtOnce() {
        putClient(key("many"), """
                {"tenant": "no-such-tenant", "plan": "gold", "overrides": {"no.rule": {"limit": 1}}}""")
                .then().statusCode(422)
                .body("errors.field", hasItems("tenant", "plan", "overrides.no.rule"))
                .body("errors.find { it.field == 'plan' }.value", is("gold"));
    }
}
