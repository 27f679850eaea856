package io.tollgate.rules.api;

import static io.tollgate.rules.Api.ADMIN;
import static io.tollgate.rules.Api.as;
import static io.tollgate.rules.Api.version;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.hasItems;
import static org.hamcrest.Matchers.is;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.tollgate.rules.TestDatabase;

/**
 * Each validation failure as its own named fixture (rules-domain's, shared through its test jar): POSTed,
 * each is a 400 problem+json naming the field, and the version does not move.
 */
@QuarkusTest
@WithTestResource(value = TestDatabase.class, scope = TestResourceScope.GLOBAL)
class ValidationApiTest {

    static Stream<Arguments> fixtures() {
        Properties expected = new Properties();
        try (InputStream in = ValidationApiTest.class.getResourceAsStream("/invalid-fields.properties")) {
            expected.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return expected.stringPropertyNames().stream().sorted().map(k -> Arguments.of(k, expected.getProperty(k)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("fixtures")
    void eachFixtureIs400NamingItsField(String fixture, String field) throws IOException {
        byte[] body;
        try (InputStream in = getClass().getResourceAsStream("/invalid/" + fixture + ".json")) {
            body = in.readAllBytes();
        }
        long before = version();
        // rule-set fixtures go to the declarative import (PUT), single rules to POST
        var request = as(ADMIN).body(body);
        var response = fixture.startsWith("set-") ? request.put("/api/v1/rules") : request.post("/api/v1/rules");

        response.then()
                .statusCode(400)
                .contentType("application/problem+json")
                .body("type", is("validation-failed"))
                .body("status", is(400))
                .body("errors.field", hasItem(field));
        assertThat(response.jsonPath().getList("errors.reason", String.class)).allMatch(r -> !r.isBlank());
        assertThat(version()).as("a rejected write does not move the version").isEqualTo(before);
    }

    @Test
    void everyBadFieldIsListedWithValueAndReason() throws IOException {
        byte[] body;
        try (InputStream in = getClass().getResourceAsStream("/invalid/many-errors.json")) {
            body = in.readAllBytes();
        }
        as(ADMIN).body(body)
                .post("/api/v1/rules")
                .then()
                .statusCode(400)
                .body("errors.field", hasItems("colour", "id", "match.path", "key", "algorithm", "limit", "period",
                        "burst", "failure_mode", "missing_key", "shadow"))
                .body("errors.find { it.field == 'limit' }.value", is("0"))
                .body("errors.find { it.field == 'limit' }.reason", is("must be at least 1"));
    }
}
