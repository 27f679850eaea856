package io.tollgate.e2e.support;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The Prometheus text reader the tests count failure-mode decisions with. */
class MetricsTest {

    private static final String SCRAPE = """
            # HELP tollgate_decisions_total Decisions by rule and outcome
            # TYPE tollgate_decisions_total counter
            tollgate_decisions_total{outcome="allowed",rule="partner.minute"} 90.0
            tollgate_decisions_total{outcome="fallback_allowed",rule="partner.minute"} 7.0
            tollgate_decisions_total{outcome="fallback_allowed",rule="orders.write"} 3.0
            tollgate_decisions_total{outcome="fallback_rejected",rule="partner.minute"} 2.0
            tollgate_store_latency_seconds_bucket{le="+Inf",note="a \\"quoted\\", value"} 12.0
            tollgate_store_breaker_state NaN
            """;

    @Test
    void sumsTheSamplesCarryingTheGivenLabels() {
        Metrics metrics = Metrics.parse(SCRAPE);
        assertThat(metrics.sum("tollgate_decisions_total")).isEqualTo(102.0);
        assertThat(metrics.sum("tollgate_decisions_total", "outcome=fallback_allowed")).isEqualTo(10.0);
        assertThat(metrics.sum("tollgate_decisions_total", "rule=partner.minute", "outcome=fallback_allowed")).isEqualTo(7.0);
        assertThat(metrics.sum("tollgate_store_latency_seconds_bucket", "le=+Inf")).isEqualTo(12.0);
        assertThat(metrics.sum("tollgate_fallback_overadmitted_total")).isZero();
    }

    @Test
    void tellsAnAbsentMetricFromAZeroOneAndTakesDifferences() {
        Metrics metrics = Metrics.parse(SCRAPE);
        assertThat(metrics.has("tollgate_store_breaker_state")).isTrue();
        assertThat(metrics.has("tollgate_decisions_total", "outcome=cached_rejected")).isFalse();
        assertThat(metrics.has("tollgate_fallback_overadmitted_total")).isFalse();
        assertThat(metrics.since(Metrics.none(), "tollgate_decisions_total", "outcome=fallback_rejected")).isEqualTo(2.0);
        assertThat(metrics.since(metrics, "tollgate_decisions_total")).isZero();
    }
}
