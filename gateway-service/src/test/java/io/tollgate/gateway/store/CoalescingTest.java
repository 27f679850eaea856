package io.tollgate.gateway.store;

import static io.tollgate.gateway.support.GatewayControl.backendHits;
import static io.tollgate.gateway.support.GatewayControl.config;
import static io.tollgate.gateway.support.GatewayControl.install;
import static io.tollgate.gateway.support.GatewayControl.management;
import static io.tollgate.gateway.support.GatewayControl.resetBackend;
import static io.tollgate.gateway.support.GatewayControl.rule;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.tollgate.gateway.support.Flood;
import io.tollgate.gateway.support.GatewayResource;
import io.tollgate.gateway.support.RedisCli;

/**
 * Checks that reach one event loop together go to Redis as one call of the script (standalone Redis, the
 * default), through the whole gateway: the counts stay exact with one bucket every client shares, and a
 * flushed script cache heals under load. (That one loop turn is one call: {@link CoalescedChecksTest}.)
 */
@QuarkusTest
@WithTestResource(value = GatewayResource.class, initArgs = @ResourceArg(name = "store.timeout", value = "2s"))
class CoalescingTest {

    private static final int CONNECTIONS = 32;
    private static final int REQUESTS_EACH = 25;
    private static final int LIMIT = 300;

    private int redisPort;

    @BeforeEach
    void reset() {
        resetBackend();
        redisPort = RedisCli.port(config("test.redis.nodes"));
    }

    @Test
    void concurrentChecksOfManyClientsStayExact() throws Exception {
        // one bucket every client shares (key "global") and one per client: two checks per request, batched
        install("[" + rule("co.global", "/co/**", "global", LIMIT, "1h", LIMIT, "") + ","
                + rule("co.client", "/co/**", "api_key", 1_000, "1h", 1_000, "") + "]");

        Map<Integer, Integer> statuses = flood("/co/x");

        assertThat(statuses.keySet()).as("statuses").containsOnly(200, 429);
        assertThat(statuses.get(200)).as("allowed of %d", CONNECTIONS * REQUESTS_EACH).isEqualTo(LIMIT);
        assertThat(backendHits()).isEqualTo(LIMIT);
        assertThat(management().get("/q/metrics").asString()).as("decided by the store, never by the failure policy")
                .doesNotContainPattern("outcome=\"fallback_[a-z]+\",rule=\"co\\.[a-z]+\"} [1-9]");
    }

    @Test
    void aScriptCacheFlushedUnderLoadHealsWithoutAWrongAnswer() throws Exception {
        install("[" + rule("co.flush", "/flush/**", "global", LIMIT, "1h", LIMIT, "") + "]");
        RedisCli.run(redisPort, "SCRIPT", "FLUSH");

        Map<Integer, Integer> statuses = flood("/flush/x");

        assertThat(statuses.keySet()).as("no check failed: every batch that met NOSCRIPT was sent again")
                .containsOnly(200, 429);
        assertThat(statuses.get(200)).isEqualTo(LIMIT);
        assertThat(backendHits()).isEqualTo(LIMIT);
        assertThat(management().get("/q/metrics").asString()).as("decided by the store, never by the failure policy")
                .doesNotContainPattern("outcome=\"fallback_[a-z]+\",rule=\"co\\.flush\"} [1-9]");
    }

    /** {@code CONNECTIONS} clients, each with its own key, sending {@code REQUESTS_EACH} requests at once. */
    private static Map<Integer, Integer> flood(String path) throws Exception {
        return Flood.statuses(path, CONNECTIONS, c -> "client-" + c, n -> n < REQUESTS_EACH);
    }
}
