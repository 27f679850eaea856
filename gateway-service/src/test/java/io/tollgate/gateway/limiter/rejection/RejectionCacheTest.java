package io.tollgate.gateway.limiter.rejection;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.tollgate.counter.Algorithm;
import io.tollgate.counter.Policy;
import io.tollgate.gateway.store.Bucket;

class RejectionCacheTest {

    /** One token every 500 ms. */
    private static final Policy TWO_A_SECOND = new Policy(Algorithm.TOKEN_BUCKET, 2, 1000, 1);
    private static final Bucket A = new Bucket("rl:a:{k}", TWO_A_SECOND);
    private static final Bucket B = new Bucket("rl:b:{k}", TWO_A_SECOND);
    private static final Bucket WINDOW = new Bucket("rl:w:{k}", new Policy(Algorithm.FIXED_WINDOW, 5, 1000, 5));

    private final AtomicLong nanos = new AtomicLong(5_000_000_000L);
    private final RejectionCache cache = new RejectionCache(nanos::get);
    private final ExecutorService racers = Executors.newFixedThreadPool(4);

    @AfterEach
    void stopRacers() {
        racers.shutdownNow();
    }

    @Test
    void eachBucketReportsItsOwnWaitAndNoneMeansTheRequestGoes() {
        cache.rejected(B, 700);
        assertThat(cache.admit(List.of(A, B))).containsExactly(0, 700);
        assertThat(cache.admit(List.of(A))).as("nothing remembered of a: the store decides").isNull();
    }

    @Test
    void rememberedOnlyLooks() {
        assertThat(cache.remembered(List.of(A))).isNull();
        cache.rejected(B, 700);
        assertThat(cache.remembered(List.of(A, B))).containsExactly(0, 700);
        assertThat(cache.remembered(List.of(new Bucket(B.key(), new Policy(Algorithm.TOKEN_BUCKET, 9, 1000, 9)))))
                .as("the rule changed: nothing remembered for its new policy").isNull();
        nanos.addAndGet(700_000_000L);
        assertThat(cache.remembered(List.of(B))).as("run out").isNull();
        assertThat(cache.admit(List.of(B))).as("no probe was marked by looking: this request probes").isNull();
        assertThat(cache.remembered(List.of(B))).as("the others wait for that probe").isNotNull();
    }

    @Test
    void aCheckThatLeftLessThanTheCostIsRememberedUntilTheCostIsBack() {
        // 2 a second, burst 20, cost 5: a check leaves 3 whole tokens (3.4 held), full again in 8.3 s; the
        // next request needs 1.6 more tokens, 800 ms: the time until full less 15 token intervals (7.5 s)
        Bucket dear = new Bucket("rl:dear:{k}", new Policy(Algorithm.TOKEN_BUCKET, 2, 1000, 20, 5));
        cache.allowed(dear, 3, 8_300);
        assertThat(cache.admit(List.of(dear))).containsExactly(800);
        nanos.addAndGet(800_000_000L);
        assertThat(cache.admit(List.of(dear))).as("the cost is back: one request probes").isNull();

        cache.allowed(dear, 5, 7_500);
        assertThat(cache.admit(List.of(dear))).as("the cost is left: nothing remembered").isNull();
    }

    @Test
    void aRejectionAboutToRunOutStillAnswersWithAWait() {
        // the clock moves 0.6 ms at every reading: the wait is read with the decision, never after it
        AtomicLong ticking = new AtomicLong(5_000_000_000L);
        RejectionCache moving = new RejectionCache(() -> ticking.addAndGet(600_000));
        moving.rejected(A, 1);
        assertThat(moving.admit(List.of(A))).containsExactly(1);
    }

    @Test
    void requestsRacingForARejectionThatRanOutMakeOneProbe() throws Exception {
        // several loops meet the same run-out rejection at once: one of them probes, the others wait for it
        // (one loop taking another's fresh mark for a lost probe once sent a whole flood to the store)
        for (int trial = 0; trial < 5_000; trial++) {
            RejectionCache shared = new RejectionCache(nanos::get);
            shared.rejected(A, 10);
            nanos.addAndGet(10_000_000L);
            long probes = race(shared, Collections.nCopies(4, List.of(A))).stream().filter(Objects::isNull).count();
            assertThat(probes).as("probes in trial %d", trial).isEqualTo(1);
        }
    }

    @Test
    void requestsRacingOverSeveralBucketsMakeOneProbePerBucket() throws Exception {
        // a request that marked one bucket and must wait for another's probe gives its mark back: that bucket
        // still gets exactly one probe (dropping its memory instead let every later request through)
        List<List<Bucket>> requests = List.of(List.of(A, B), List.of(B), List.of(A), List.of(B, A));
        for (int trial = 0; trial < 5_000; trial++) {
            RejectionCache shared = new RejectionCache(nanos::get);
            shared.rejected(A, 10);
            shared.rejected(B, 10);
            nanos.addAndGet(10_000_000L);
            List<long[]> answers = race(shared, requests);
            Map<Bucket, Integer> probes = new HashMap<>(Map.of(A, 0, B, 0));
            for (int r = 0; r < requests.size(); r++) {
                if (answers.get(r) == null) {
                    requests.get(r).forEach(bucket -> probes.merge(bucket, 1, Integer::sum));
                }
            }
            for (Bucket bucket : List.of(A, B, A, B)) { // after the race, one by one
                if (shared.admit(List.of(bucket)) == null) {
                    probes.merge(bucket, 1, Integer::sum);
                }
            }
            assertThat(probes).as("probes per bucket in trial %d", trial).containsEntry(A, 1).containsEntry(B, 1);
        }
    }

    @Test
    void remembersUntilTheRetryTimeCountedFromWhenTheAnswerCame() {
        cache.rejected(A, 1500);
        assertThat(waitMs(A)).isEqualTo(1500);
        nanos.addAndGet(1_499_000_000L);
        assertThat(waitMs(A)).isEqualTo(1);
        nanos.addAndGet(1_000_000L);
        assertThat(waitMs(A)).isZero();
        assertThat(waitMs(new Bucket("rl:other:{k}", TWO_A_SECOND))).isZero();
    }

    @Test
    void theLastTokenOfABurstIsRememberedUntilTheNextTokenNotUntilFull() {
        // 10 a second (a token every 100 ms), burst 20: full again in 1,950 ms means the next token in 50 ms
        Bucket burst = new Bucket("rl:burst:{k}", new Policy(Algorithm.GCRA, 10, 1000, 20));
        cache.allowed(burst, 0, 1950);
        assertThat(waitMs(burst)).isEqualTo(50);
        nanos.addAndGet(50_000_000L);
        assertThat(waitMs(burst)).as("the probe for the next token").isZero();
    }

    @Test
    void aChangedRuleForgetsWhatTheOldOneRemembered() {
        cache.rejected(A, 60_000);
        Bucket faster = new Bucket(A.key(), new Policy(Algorithm.TOKEN_BUCKET, 100, 1000, 100));
        assertThat(waitMs(A)).isEqualTo(60_000);
        assertThat(waitMs(faster)).as("the same key under a new policy goes to the store").isZero();
    }

    @Test
    void aBucketOfOneTokenIsProbedByOneRequestHoweverLongItWaited() {
        cache.rejected(A, 10);
        nanos.addAndGet(60_000_000_000L); // a minute idle: still at most one token
        assertThat(waitMs(A)).as("probe").isZero();
        assertThat(waitMs(A)).as("the others wait for its answer, one interval at most").isEqualTo(500);
    }

    @Test
    void aNeverPassingRequestIsNotRemembered() {
        cache.rejected(A, -1);
        assertThat(waitMs(A)).isZero();
        assertThat(waitMs(A)).isZero();
    }

    @Test
    void whenARejectionRunsOutOneRequestProbesAndTheOthersWaitForItsAnswer() {
        cache.rejected(A, 200);
        assertThat(waitMs(A)).as("still rejected").isEqualTo(200);
        nanos.addAndGet(200_000_000L);

        assertThat(waitMs(A)).as("the first request after the retry time goes to the store").isZero();
        assertThat(waitMs(A)).as("the next ones, while its answer is on the way, do not").isPositive();

        cache.allowed(A, 0, 500); // the probe took the only token; the next is 500 ms away
        assertThat(waitMs(A)).as("nobody goes before the next token").isEqualTo(500);
        nanos.addAndGet(500_000_000L);
        assertThat(waitMs(A)).as("then one request probes again").isZero();
        assertThat(waitMs(A)).isPositive();
        cache.rejected(A, 480);
        assertThat(waitMs(A)).isEqualTo(480);
    }

    @Test
    void othersWaitNoLongerThanOneTokenIntervalAfterTheBucketCouldPassAgain() {
        cache.allowed(A, 0, 100); // next token in 100 ms
        nanos.addAndGet(100_000_000L);
        assertThat(waitMs(A)).as("probe").isZero();
        assertThat(waitMs(A)).as("held one token interval past the next token").isEqualTo(500);
        nanos.addAndGet(500_000_000L);
        assertThat(waitMs(A)).as("a second token may be there now: everyone goes").isZero();
        assertThat(waitMs(A)).isZero();
    }

    @Test
    void aBucketWithTokensLeftOrAWindowIsNotHeldBack() {
        cache.allowed(A, 3, 1500);
        cache.allowed(WINDOW, 0, 1000);
        assertThat(waitMs(A)).isZero();
        assertThat(waitMs(A)).isZero();
        cache.rejected(WINDOW, 10);
        nanos.addAndGet(10_000_000L);
        assertThat(waitMs(WINDOW)).as("a window frees its whole limit at once").isZero();
        assertThat(waitMs(WINDOW)).isZero();
    }

    @Test
    void anOldRejectionOrALostProbeHoldsNobodyBack() {
        Bucket burstOfTwo = new Bucket("rl:two:{k}", new Policy(Algorithm.TOKEN_BUCKET, 2, 1000, 2));
        cache.rejected(burstOfTwo, 10);
        nanos.addAndGet(1_000_000_000L); // long past: the bucket may hold two tokens
        assertThat(waitMs(burstOfTwo)).isZero();
        assertThat(waitMs(burstOfTwo)).isZero();

        cache.rejected(B, 10);
        nanos.addAndGet(10_000_000L);
        assertThat(waitMs(B)).isZero();
        nanos.addAndGet(500_000_000L); // the probe's answer never came
        assertThat(waitMs(B)).isZero();
    }

    @Test
    void aRequestThatMustWaitForOneBucketsProbeLeavesItsOtherBucketsUnmarked() {
        cache.rejected(A, 10);
        cache.rejected(B, 10);
        nanos.addAndGet(10_000_000L);
        assertThat(waitMs(B)).as("probes b").isZero();
        assertThat(waitMs(A, B)).as("waits for b's probe").isPositive();
        assertThat(waitMs(A)).as("a was left unmarked: this one probes it").isZero();
    }

    /** {@code requests} sent to {@code shared} at once, each on a thread of its own; their answers, in order. */
    private List<long[]> race(RejectionCache shared, List<List<Bucket>> requests) throws Exception {
        CyclicBarrier together = new CyclicBarrier(requests.size());
        List<Future<long[]>> pending = new ArrayList<>();
        for (List<Bucket> request : requests) {
            pending.add(racers.submit(() -> {
                together.await();
                return shared.admit(request);
            }));
        }
        List<long[]> answers = new ArrayList<>();
        for (Future<long[]> answer : pending) {
            answers.add(answer.get());
        }
        return answers;
    }

    /** The longest wait {@code buckets} are answered with, 0 when the request goes to the store. */
    private long waitMs(Bucket... buckets) {
        long[] waits = cache.admit(List.of(buckets));
        return waits == null ? 0 : Arrays.stream(waits).max().orElseThrow();
    }
}
