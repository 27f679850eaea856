package io.tollgate.gateway.limiter;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import io.tollgate.counter.Algorithm;
import io.tollgate.counter.Policy;

class RejectionCacheTest {

    /** One token every 500 ms. */
    private static final Policy TWO_A_SECOND = new Policy(Algorithm.TOKEN_BUCKET, 2, 1000, 1);
    private static final Bucket A = new Bucket("rl:a:{k}", TWO_A_SECOND);
    private static final Bucket B = new Bucket("rl:b:{k}", TWO_A_SECOND);
    private static final Bucket WINDOW = new Bucket("rl:w:{k}", new Policy(Algorithm.FIXED_WINDOW, 5, 1000, 5));

    private final AtomicLong nanos = new AtomicLong(5_000_000_000L);
    private final RejectionCache cache = new RejectionCache(nanos::get);

    @Test
    void remembersUntilTheRetryTimeCountedFromWhenTheAnswerCame() {
        cache.rejected(A, 1500);
        assertThat(cache.remainingMs(A.key())).isEqualTo(1500);
        nanos.addAndGet(1_499_000_000L);
        assertThat(cache.remainingMs(A.key())).isEqualTo(1);
        nanos.addAndGet(1_000_000L);
        assertThat(cache.remainingMs(A.key())).isZero();
        assertThat(cache.remainingMs("rl:other:{k}")).isZero();
    }

    @Test
    void theLastTokenOfABurstIsRememberedUntilTheNextTokenNotUntilFull() {
        // 10 a second (a token every 100 ms), burst 20: full again in 1,950 ms means the next token in 50 ms
        Bucket burst = new Bucket("rl:burst:{k}", new Policy(Algorithm.GCRA, 10, 1000, 20));
        cache.allowed(burst, 0, 1950);
        assertThat(cache.admit(List.of(burst))).isEqualTo(50);
        nanos.addAndGet(50_000_000L);
        assertThat(cache.admit(List.of(burst))).as("the probe for the next token").isZero();
    }

    @Test
    void aChangedRuleForgetsWhatTheOldOneRemembered() {
        cache.rejected(A, 60_000);
        Bucket faster = new Bucket(A.key(), new Policy(Algorithm.TOKEN_BUCKET, 100, 1000, 100));
        assertThat(cache.admit(List.of(A))).isEqualTo(60_000);
        assertThat(cache.admit(List.of(faster))).as("the same key under a new policy goes to the store").isZero();
    }

    @Test
    void aBucketOfOneTokenIsProbedByOneRequestHoweverLongItWaited() {
        cache.rejected(A, 10);
        nanos.addAndGet(60_000_000_000L); // a minute idle: still at most one token
        assertThat(cache.admit(List.of(A))).as("probe").isZero();
        assertThat(cache.admit(List.of(A))).as("the others wait for its answer, one interval at most").isEqualTo(500);
    }

    @Test
    void aNeverPassingRequestIsNotRemembered() {
        cache.rejected(A, -1);
        assertThat(cache.admit(List.of(A))).isZero();
        assertThat(cache.remainingMs(A.key())).isZero();
    }

    @Test
    void whenARejectionRunsOutOneRequestProbesAndTheOthersWaitForItsAnswer() {
        cache.rejected(A, 200);
        assertThat(cache.admit(List.of(A))).as("still rejected").isEqualTo(200);
        nanos.addAndGet(200_000_000L);

        assertThat(cache.admit(List.of(A))).as("the first request after the retry time goes to the store").isZero();
        assertThat(cache.admit(List.of(A))).as("the next ones, while its answer is on the way, do not").isPositive();

        cache.allowed(A, 0, 500); // the probe took the only token; the next is 500 ms away
        assertThat(cache.admit(List.of(A))).as("nobody goes before the next token").isEqualTo(500);
        nanos.addAndGet(500_000_000L);
        assertThat(cache.admit(List.of(A))).as("then one request probes again").isZero();
        assertThat(cache.admit(List.of(A))).isPositive();
        cache.rejected(A, 480);
        assertThat(cache.admit(List.of(A))).isEqualTo(480);
    }

    @Test
    void othersWaitNoLongerThanOneTokenIntervalAfterTheBucketCouldPassAgain() {
        cache.allowed(A, 0, 100); // next token in 100 ms
        nanos.addAndGet(100_000_000L);
        assertThat(cache.admit(List.of(A))).as("probe").isZero();
        assertThat(cache.admit(List.of(A))).as("held one token interval past the next token").isEqualTo(500);
        nanos.addAndGet(500_000_000L);
        assertThat(cache.admit(List.of(A))).as("a second token may be there now: everyone goes").isZero();
        assertThat(cache.admit(List.of(A))).isZero();
    }

    @Test
    void aBucketWithTokensLeftOrAWindowIsNotHeldBack() {
        cache.allowed(A, 3, 1500);
        cache.allowed(WINDOW, 0, 1000);
        assertThat(cache.admit(List.of(A))).isZero();
        assertThat(cache.admit(List.of(A))).isZero();
        cache.rejected(WINDOW, 10);
        nanos.addAndGet(10_000_000L);
        assertThat(cache.admit(List.of(WINDOW))).as("a window frees its whole limit at once").isZero();
        assertThat(cache.admit(List.of(WINDOW))).isZero();
    }

    @Test
    void anOldRejectionOrALostProbeHoldsNobodyBack() {
        Bucket burstOfTwo = new Bucket("rl:two:{k}", new Policy(Algorithm.TOKEN_BUCKET, 2, 1000, 2));
        cache.rejected(burstOfTwo, 10);
        nanos.addAndGet(1_000_000_000L); // long past: the bucket may hold two tokens
        assertThat(cache.admit(List.of(burstOfTwo))).isZero();
        assertThat(cache.admit(List.of(burstOfTwo))).isZero();

        cache.rejected(B, 10);
        nanos.addAndGet(10_000_000L);
        assertThat(cache.admit(List.of(B))).isZero();
        nanos.addAndGet(500_000_000L); // the probe's answer never came
        assertThat(cache.admit(List.of(B))).isZero();
    }

    @Test
    void aRequestThatMustWaitForOneBucketsProbeLeavesItsOtherBucketsUnmarked() {
        cache.rejected(A, 10);
        cache.rejected(B, 10);
        nanos.addAndGet(10_000_000L);
        assertThat(cache.admit(List.of(B))).as("probes b").isZero();
        assertThat(cache.admit(List.of(A, B))).as("waits for b's probe").isPositive();
        assertThat(cache.admit(List.of(A))).as("a was left unmarked: this one probes it").isZero();
    }
}
