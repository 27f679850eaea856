package io.tollgate.gateway.limiter.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** The decaying rate follows steady arrivals and fades when they stop. */
class LocalRateTest {

    @Test
    void steadyArrivalsReadAsTheirRate() {
        LocalRate rate = new LocalRate();
        long now = 0;
        for (int i = 0; i < 2_000; i++) { // 200 a second for 10 s
            rate.arrived(now);
            now += 5_000_000;
        }
        assertThat(rate.perSecond(now)).isCloseTo(200, within(2.0));
    }

    @Test
    void aQuietClientFades() {
        LocalRate rate = new LocalRate();
        assertThat(rate.perSecond(0)).isZero();
        for (long now = 0; now < 10_000_000_000L; now += 10_000_000) {
            rate.arrived(now);
        }
        assertThat(rate.perSecond(15_000_000_000L)).isLessThan(1);
    }

    @Test
    void anArrivalReportedLateDoesNotMoveTheClockBack() {
        LocalRate rate = new LocalRate();
        rate.arrived(2_000_000_000L);
        rate.arrived(1_000_000_000L);
        assertThat(rate.perSecond(2_000_000_000L)).isCloseTo(2, within(1e-9));
    }

    @Test
    void theRequestAtHandIsNotPartOfTheRateBeforeIt() {
        LocalRate rate = new LocalRate();
        rate.arrived(0);
        assertThat(rate.perSecondBefore(0)).as("a first request: nobody else").isZero();
        rate.arrived(2_300_000_000L); // a key of a 10,000-key flood, seen every 2.3 s
        assertThat(rate.perSecond(2_300_000_000L)).as("with itself").isGreaterThan(1);
        assertThat(rate.perSecondBefore(2_300_000_000L)).isCloseTo(Math.exp(-2.3), within(1e-9));
        long now = 2_300_000_000L;
        for (int i = 0; i < 2_000; i++) { // then 200 a second
            now += 5_000_000;
            rate.arrived(now);
        }
        assertThat(rate.perSecondBefore(now)).isCloseTo(200, within(2.0));
    }
}
