package io.tollgate.rules.live;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

/** The Prometheus text format as a gateway's /q/metrics writes it, and the readings taken from it. */
class PrometheusTextTest {

    private static final String METRICS = """
            # HELP tollgate_decisions_total rate-limit decisions by rule and outcome
            # TYPE tollgate_decisions_total counter
            tollgate_decisions_total{outcome="allowed",rule="orders.write"} 12.0
            tollgate_decisions_total{outcome="rejected",rule="orders.write"} 3.0
            tollgate_decisions_total{outcome="leased",rule="orders.write"} 5.0
            tollgate_decisions_total{outcome="shadow_rejected",rule="odd \\"quoted\\", rule"} 1.0 1700000000000
            tollgate_decisions_total{outcome="allowed",rule="broken} 9.0
            tollgate_store_breaker_state 2.0
            tollgate_store_errors_total{kind="timeout"} 4.0
            tollgate_store_errors_total{kind="breaker_open"} 40.0
            tollgate_store_latency_seconds_count 100.0
            tollgate_store_latency_seconds_sum 0.5
            process_start_time_seconds 1.7E9
            jvm_threads_live_threads NaN
            """;

    @Test
    void readsTheSamplesAskedForWithTheirLabels() {
        List<PrometheusText.Sample> samples = PrometheusText.parse(METRICS,
                Set.of("tollgate_decisions_total", "jvm_threads_live_threads"));
        assertThat(samples).hasSize(5); // the line with an unclosed label value is skipped
        assertThat(samples.get(0).labels()).isEqualTo(Map.of("outcome", "allowed", "rule", "orders.write"));
        assertThat(samples.get(0).value()).isEqualTo(12.0);
        assertThat(samples.get(3).labels().get("rule")).isEqualTo("odd \"quoted\", rule");
        assertThat(samples.get(4).value()).isNaN();
    }

    @Test
    void aReadingHoldsDecisionsBreakerStoreAndStart() {
        GatewayReading reading = GatewayReading.of(METRICS);
        assertThat(reading.decisions()).containsEntry(new GatewayReading.Counter("orders.write", "leased"), 5.0)
                .hasSize(4);
        assertThat(reading.breaker()).isEqualTo("half_open");
        assertThat(reading.storeErrors()).as("breaker_open is not the store failing").isEqualTo(4.0);
        assertThat(reading.storeAnswers()).isEqualTo(100.0);
        assertThat(reading.startedAt()).isEqualTo(1.7e9);
        assertThat(GatewayReading.of("").breaker()).isNull();
    }
}
