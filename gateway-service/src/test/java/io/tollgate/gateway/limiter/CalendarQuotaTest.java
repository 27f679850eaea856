package io.tollgate.gateway.limiter;

import static io.restassured.RestAssured.given;
import static io.tollgate.gateway.support.GatewayControl.config;
import static io.tollgate.gateway.support.GatewayControl.install;
import static io.tollgate.gateway.support.GatewayControl.operations;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import io.tollgate.gateway.support.GatewayResource;
import io.tollgate.gateway.support.RedisCli;
import io.tollgate.rules.domain.CalendarWindow;
import io.tollgate.rules.domain.ClientDigest;

/**
 * A monthly quota on the calendar through HTTP on a real Redis: the limit holds for the month, the client is
 * told to come back on the 1st, and the count lives in a key named by the month.
 */
@QuarkusTest
@WithTestResource(value = GatewayResource.class, initArgs = @ResourceArg(name = "store.timeout", value = "1s"))
class CalendarQuotaTest {

    @Test
    void aMonthlyQuotaHoldsUntilTheFirstOfTheNextMonthInItsZone() {
        install("""
                [{"id": "quota.monthly", "match": {"path": "/quota/**"}, "key": "api_key",
                  "algorithm": "fixed_window", "limit": 3, "period": "P1M", "calendar": "Europe/Berlin"}]""");
        String apiKey = "quota-" + UUID.randomUUID();
        CalendarWindow month = CalendarWindow.at(Instant.now(), ZoneId.of("Europe/Berlin"),
                CalendarWindow.Length.MONTH);
        for (int remaining = 2; remaining >= 0; remaining--) {
            get(apiKey).then().statusCode(200).header("RateLimit-Remaining", Integer.toString(remaining));
        }
        Response rejected = get(apiKey);
        rejected.then().statusCode(429);
        long toTheFirst = Duration.between(Instant.now(), month.end()).toSeconds();
        assertThat(Long.parseLong(rejected.getHeader("Retry-After"))).as("seconds to the 1st in Berlin")
                .isCloseTo(toTheFirst, within(3L));
        assertThat(Long.parseLong(rejected.getHeader("RateLimit-Reset"))).isCloseTo(toTheFirst, within(3L));

        int port = RedisCli.port(config("test.redis.nodes"));
        assertThat(RedisCli.run(port, "EXISTS", "rl:quota.monthly:{sha256:" + ClientDigest.of(apiKey) + "}:" + month.label()))
                .as("the count is kept under the month's key").isEqualTo("1");
        assertThat(operations().header("X-API-Key", apiKey).get("/tollgate/explain?path=/quota/x").jsonPath()
                .getString("rules[0].key")).endsWith(":" + month.label());
    }

    private static Response get(String apiKey) {
        return given().header("X-API-Key", apiKey).get("/quota/x");
    }
}
