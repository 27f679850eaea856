package io.tollgate.gateway.limiter;

import static io.restassured.RestAssured.given;
import static io.tollgate.gateway.support.GatewayControl.config;
import static io.tollgate.gateway.support.GatewayControl.install;
import static io.tollgate.gateway.support.GatewayControl.operations;
import static io.tollgate.gateway.support.GatewayControl.rule;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import jakarta.inject.Inject;

import org.jboss.logmanager.ExtLogRecord;
import org.junit.jupiter.api.Test;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.tollgate.counter.Decision;
import io.tollgate.gateway.store.Bucket;
import io.tollgate.gateway.store.CounterStore;
import io.tollgate.gateway.support.GatewayResource;
import io.tollgate.gateway.support.RedisCli;
import io.tollgate.rules.domain.KeySpec;
import io.tollgate.rules.domain.Rule;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;

/**
 * API keys and {@code header:} values are secrets: after requests that carry them, Redis holds each only as its
 * SHA-256 in the bucket key ({@code rl:<rule>:{sha256:<hex>}}), the operations' answers and the reset log show
 * the digest, and the limit still holds exactly. The expected digests are {@code printf %s <secret> | sha256sum}.
 */
@QuarkusTest
@WithTestResource(value = GatewayResource.class, initArgs = @ResourceArg(name = "store.timeout", value = "1s"))
class SecretKeysTest {

    private static final String API_KEY = "sk_live_CUSTOMER_SECRET_1";
    private static final String API_KEY_SHA256 = "ec55d3b93511d9aa888074250efb3de48be4ab46844576740ab64a09de49f374";
    private static final String HEADER_VALUE = "sk_live_CUSTOMER_SECRET_2";
    private static final String HEADER_SHA256 = "216919c4369ef9eef4dd863f53a5a5e20132977b2f038fc8887dbcfb3e4427a2";
    private static final String OLD_KEY = "sk_live_CUSTOMER_SECRET_3";
    private static final String OLD_KEY_SHA256 = "2c36cd132c87d04d41a923245b87868fa43cbfd005e0adbc2538da867e8327af";

    @Inject
    CounterStore store;

    @Inject
    Vertx vertx;

    @Test
    void anApiKeyIsStoredOnlyAsItsDigestAndTheLimitHoldsExactly() {
        install("[" + rule("secret.key", "/secret-key/**", "api_key", 3, "1h", 3, "") + "]");
        for (int remaining = 2; remaining >= 0; remaining--) {
            given().header("X-API-Key", API_KEY).get("/secret-key/x").then().statusCode(200)
                    .header("RateLimit-Remaining", Integer.toString(remaining));
        }
        given().header("X-API-Key", API_KEY).get("/secret-key/x").then().statusCode(429);

        assertThat(keys("rl:secret.key:*")).containsExactly("rl:secret.key:{sha256:" + API_KEY_SHA256 + "}");
        assertThat(keys("*")).as("every key in Redis").noneMatch(k -> k.contains(API_KEY));

        String explained = operations().header("X-API-Key", API_KEY).get("/tollgate/explain?path=/secret-key/x").asString();
        assertThat(explained).contains("\"key\":\"rl:secret.key:{sha256:" + API_KEY_SHA256 + "}\"")
                .doesNotContain(API_KEY);
        assertThat(operations().get("/tollgate/top?rule=secret.key").asString()).contains(API_KEY_SHA256)
                .doesNotContain(API_KEY);
    }

    @Test
    void aHeaderValueIsStoredOnlyAsItsDigestAndTheLimitHoldsExactly() {
        install("[" + rule("secret.header", "/secret-header/**", "header:X-Customer-Token", 2, "1h", 2, "") + "]");
        for (int remaining = 1; remaining >= 0; remaining--) {
            given().header("X-Customer-Token", HEADER_VALUE).get("/secret-header/x").then().statusCode(200)
                    .header("RateLimit-Remaining", Integer.toString(remaining));
        }
        given().header("X-Customer-Token", HEADER_VALUE).get("/secret-header/x").then().statusCode(429);

        assertThat(keys("rl:secret.header:*")).containsExactly("rl:secret.header:{sha256:" + HEADER_SHA256 + "}");
        assertThat(keys("*")).as("every key in Redis").noneMatch(k -> k.contains(HEADER_VALUE));
        assertThat(operations().header("X-Customer-Token", HEADER_VALUE).get("/tollgate/explain?path=/secret-header/x")
                .asString()).contains("rl:secret.header:{sha256:" + HEADER_SHA256 + "}").doesNotContain(HEADER_VALUE);
    }

    @Test
    void aResetIsLoggedWithTheDigestNeverTheKey() {
        install("[" + rule("secret.reset", "/secret-reset/**", "api_key", 5, "1h", 5, "") + "]");
        given().header("X-API-Key", API_KEY).get("/secret-reset/x").then().statusCode(200);
        List<String> logged = new CopyOnWriteArrayList<>();
        Handler capture = new Handler() {

            @Override
            public void publish(LogRecord record) {
                logged.add(record instanceof ExtLogRecord ext ? ext.getFormattedMessage() : record.getMessage());
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger routeLog = Logger.getLogger("io.tollgate.gateway.admin.BucketsRoute");
        routeLog.addHandler(capture);
        try {
            operations().header("X-API-Key", API_KEY).delete("/tollgate/buckets?rule=secret.reset").then().statusCode(204);
        } finally {
            routeLog.removeHandler(capture);
        }
        assertThat(logged).singleElement().asString()
                .contains("rl:secret.reset:{sha256:" + API_KEY_SHA256 + "}")
                .doesNotContain(API_KEY);
    }

    @Test
    void aBucketWrittenUnderTheOldRawKeyIsNotTheOneCountedNowAndExpiresByItsTtl() throws Exception {
        install("[" + rule("secret.upgrade", "/secret-upgrade/**", "api_key", 3, "1h", 3, "") + "]");
        // the bucket an earlier gateway kept under the raw key, spent to empty
        Bucket old = new Bucket("rl:secret.upgrade:{" + OLD_KEY + "}",
                Rule.of("secret.upgrade", "/secret-upgrade/**", KeySpec.API_KEY, 3, Duration.ofHours(1)).policy());
        for (int i = 0; i < 3; i++) {
            assertThat(check(old).allowed()).isTrue();
        }
        assertThat(check(old).allowed()).as("the old bucket is empty").isFalse();

        // this gateway counts in the digest's bucket, which starts full
        for (int remaining = 2; remaining >= 0; remaining--) {
            given().header("X-API-Key", OLD_KEY).get("/secret-upgrade/x").then().statusCode(200)
                    .header("RateLimit-Remaining", Integer.toString(remaining));
        }
        given().header("X-API-Key", OLD_KEY).get("/secret-upgrade/x").then().statusCode(429);

        assertThat(keys("rl:secret.upgrade:*")).containsExactlyInAnyOrder(old.key(),
                "rl:secret.upgrade:{sha256:" + OLD_KEY_SHA256 + "}");
        long ttlMs = Long.parseLong(RedisCli.run(redisPort(), "PTTL", old.key()));
        assertThat(ttlMs).as("the old bucket's expiry stands: it vanishes by itself").isPositive();
    }

    /** One check of {@code bucket} in the store, on an event loop as a request's. */
    private Decision check(Bucket bucket) throws Exception {
        Promise<List<Decision>> answer = Promise.promise();
        vertx.getOrCreateContext().runOnContext(v -> store.check(List.of(bucket)).onComplete(answer));
        Future<List<Decision>> done = answer.future();
        return done.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS).get(0);
    }

    private static int redisPort() {
        return RedisCli.port(config("test.redis.nodes"));
    }

    private static List<String> keys(String pattern) {
        return Arrays.stream(RedisCli.run(redisPort(), "--scan", "--pattern", pattern).split("\n"))
                .filter(k -> !k.isEmpty())
                .toList();
    }
}
