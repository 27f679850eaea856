package io.tollgate.gateway.limiter.lease;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** A lease admits only while unexpired and holding the cost; what it gives back it no longer admits. */
class LeaseTest {

    @Test
    void admitsWhileItHoldsTheCostAndReportsTheStoresWordLessWhatItSpent() {
        Lease lease = new Lease(6, 100, 1_000);
        assertThat(lease.remaining()).as("the bucket held 106 before the lease").isEqualTo(106);
        assertThat(lease.tryTake(4, 10)).isTrue();
        assertThat(lease.remaining()).isEqualTo(102);
        assertThat(lease.tryTake(4, 20)).as("2 left").isFalse();
        assertThat(lease.tryTake(2, 20)).isTrue();
        assertThat(lease.left()).isZero();
    }

    @Test
    void admitsNothingOnceExpired() {
        Lease lease = new Lease(6, 0, 1_000);
        assertThat(lease.tryTake(1, 999)).isTrue();
        assertThat(lease.over(999)).isFalse();
        assertThat(lease.tryTake(1, 1_000)).isFalse();
        assertThat(lease.over(1_000)).isTrue();
        assertThat(lease.leftover()).isEqualTo(5);
    }

    @Test
    void whatIsGivenBackIsNeverAdmitted() {
        Lease lease = new Lease(6, 0, 1_000);
        assertThat(lease.leftover()).isEqualTo(6);
        assertThat(lease.tryTake(1, 10)).isFalse();
        assertThat(lease.leftover()).as("given back once").isZero();
        assertThat(lease.remaining()).isZero();
    }
}
