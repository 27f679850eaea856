package io.tollgate.gateway.limiter.settlement;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import org.jboss.logging.Logger;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.tollgate.counter.Algorithm;
import io.tollgate.gateway.limiter.decision.Outcome;
import io.tollgate.gateway.limiter.decision.RuleDecision;
import io.tollgate.gateway.limiter.decision.Verdict;
import io.tollgate.gateway.limiter.guard.GuardedStore;
import io.tollgate.gateway.store.Bucket;
import io.tollgate.gateway.usage.Usage;
import io.tollgate.gateway.usage.UsageMeter;
import io.tollgate.gateway.usage.UsageMeters;
import io.tollgate.rules.domain.Rule;
import io.tollgate.rules.domain.Settle;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;

/**
 * What an admitted request still owes the store once its answer ends (docs/rules.md, "settle" and
 * "concurrency"): the settlement of each rule with {@code settle} that spent its cost for it, and the slot of
 * each {@code concurrency} rule it holds a slot of.
 * <p>
 * A settlement is the difference between what the answer says it used and the cost the check spent (the
 * reservation): spent too when positive, whatever the bucket holds (it may go into debt), given back when
 * negative. An answer whose usage never comes (its client went away or it broke off before the usage, the usage is
 * missing, not a whole number from 0 to {@code tollgate.settle.max-usage}, or in a body the gateway cannot decode)
 * is charged the rule's {@code settle.otherwise} instead, by default the reservation, which then stands: a client
 * gains nothing by abandoning a stream or hiding its usage. An answer cut short is charged at least the reservation,
 * whatever {@code otherwise} says. A client that leaves does not cut its answer short while a usage in its body is
 * still to come: the proxy reads the rest for it ({@link #readsRest}). A request that got no answer at all (the backend
 * unreachable or silent) keeps its reservation. A usage that is not valid is counted and logged at most once a
 * minute per rule. The settlements of one hash tag go as one call of the check script, which the store carries
 * with the event loop's other checks.
 * <p>
 * A slot is given back when the exchange ends, however it ends, and at once for a request that is not forwarded
 * after all (another client's rule rejected it): a settlement of -1 of its key, which the script runs as
 * {@code ZREM}, carried with the loop's other calls like any settlement. While the exchange runs (a long download,
 * an event stream, a WebSocket), its slots are renewed every third of their time (a settlement of 0), so a live
 * gateway's long exchanges keep their slots and a dead gateway's come back when their time is up. A renewal runs
 * only while its exchange is live (the caller says how to tell): the first that finds it over gives the slots
 * back, so a slot outlives its exchange by at most a slot's time even when no end came. Giving back happens once.
 */
public final class Settlements {

    private static final Logger LOG = Logger.getLogger(Settlements.class);
    private static final long LOG_EVERY_NANOS = TimeUnit.MINUTES.toNanos(1);

    /** The media type of gRPC requests (and its {@code +proto}, {@code +json} forms). */
    private static final String GRPC = "application/grpc";

    /** A slot is renewed every this part of its time while its exchange runs. */
    static final int RENEWALS_PER_SLOT = 3;

    private final GuardedStore store;
    private final Vertx vertx;
    private final long maxUsage;
    private final long maxDecodedBytes;
    private final MeterRegistry registry;
    private final ConcurrentHashMap<String, Counter[]> counters = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Long> loggedAt = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Settle, Supplier<UsageMeter>> meters = new ConcurrentHashMap<>();

    public Settlements(GuardedStore store, Vertx vertx, long maxUsage, long maxDecodedBytes, MeterRegistry registry) {
        this.store = store;
        this.vertx = vertx;
        this.maxUsage = maxUsage;
        this.maxDecodedBytes = maxDecodedBytes;
        this.registry = registry;
    }

    /**
     * What {@code verdict}'s request owes once its answer ends; null when it owes nothing. Its slots are renewed only
     * while {@code live} says the exchange is; the first renewal that finds it over gives them back instead.
     */
    public Settlement open(Verdict verdict, BooleanSupplier live) {
        List<RuleDecision> charged = null;
        List<RuleDecision> slotted = null;
        for (RuleDecision d : verdict.decisions()) {
            if (!d.spent()) {
                continue;
            }
            if (d.bucket().policy().algorithm() == Algorithm.CONCURRENCY) {
                slotted = slotted != null ? slotted : new ArrayList<>(1);
                slotted.add(d);
            } else if (d.rule().settle() != null) {
                charged = charged != null ? charged : new ArrayList<>(1);
                charged.add(d);
            }
        }
        return charged == null && slotted == null ? null : new RequestSettlement(charged, slotted, live);
    }

    /**
     * Gives back what a request that is not forwarded spent in the buckets that allowed it: rules that count by
     * another client (another hash tag) were checked in calls of their own, and one of them refused it. A
     * settlement of minus its cost per spent bucket, one call per hash tag, carried with the loop's other calls.
     * A concurrency slot is given back by the request's {@link RequestSettlement} instead.
     */
    public void giveBack(List<RuleDecision> decisions) {
        List<RuleDecision> spent = null;
        List<Long> deltas = null;
        for (RuleDecision d : decisions) {
            if (d.spent() && d.bucket().policy().algorithm() != Algorithm.CONCURRENCY) {
                spent = spent != null ? spent : new ArrayList<>(1);
                deltas = deltas != null ? deltas : new ArrayList<>(1);
                spent.add(d);
                deltas.add(-d.bucket().policy().cost());
            }
        }
        if (spent != null) {
            settle(spent, deltas, Ground.GIVE_BACK);
        }
    }

    /** A fresh meter of what {@code settle} names, for one answer (the pointer is prepared once per rule). */
    private UsageMeter meter(Settle settle) {
        return meters.computeIfAbsent(settle, s -> UsageMeters.of(s, maxDecodedBytes)).get();
    }

    /** One request's settlements and slots; its methods run on the request's event loop. */
    final class RequestSettlement implements Settlement {

        private final List<RuleDecision> charged;
        private final UsageMeter[] meters;
        private final List<RuleDecision> slotted;
        private final BooleanSupplier live;
        private boolean answered;
        private boolean closed;
        private boolean released;
        /** A gRPC call: its client's cancel ends it at once, on both sides. */
        private boolean grpc;
        /**
         * The gateway reads the rest of the answer for its usage, its client gone: the exchange goes on with the
         * upstream, so its slots stay until {@link #ended}, which the reading's bounds guarantee.
         */
        private boolean readingRest;
        /** The timer that renews the slots while the exchange runs; -1 without slots. */
        private final long renewals;

        private RequestSettlement(List<RuleDecision> charged, List<RuleDecision> slotted, BooleanSupplier live) {
            this.charged = charged == null ? List.of() : charged;
            this.slotted = slotted == null ? List.of() : slotted;
            this.live = live;
            this.meters = new UsageMeter[this.charged.size()];
            for (int i = 0; i < meters.length; i++) {
                meters[i] = meter(this.charged.get(i).rule().settle());
            }
            long every = Long.MAX_VALUE;
            for (RuleDecision d : this.slotted) {
                every = Math.min(every, Math.max(1, d.bucket().policy().periodMs() / RENEWALS_PER_SLOT));
            }
            // on the request's event loop, as its other calls: the timer fires on the context that set it
            this.renewals = this.slotted.isEmpty() ? -1 : vertx.setPeriodic(every, id -> renew());
        }

        /**
         * Renews each slot while the exchange is live: one still live ends a slot's time from now (one expired stays
         * gone). An exchange found over whose end never came (a path that missed it) gives its slots back here, so
         * no slot outlives its exchange by more than its time; what it owes under {@code settle} still waits for
         * {@link #ended}, which may come later. An answer read on for its usage after its client left is an exchange
         * still going on with the upstream: its slots are renewed until its end, bounded by the reading's bounds.
         */
        private void renew() {
            if (released) {
                return;
            }
            if (!readingRest && !live.getAsBoolean()) {
                LOG.debugf("exchange of %s over without its end: its slots go back", slotted.get(0).rule().id());
                release();
                return;
            }
            for (RuleDecision d : slotted) {
                store.renewSlot(d.bucket()).onFailure(err -> LOG.debugf("slot of %s not renewed (it may expire): %s",
                        d.rule().id(), err.toString()));
            }
        }

        @Override
        public void request(MultiMap headers) {
            String type = headers.get(HttpHeaders.CONTENT_TYPE);
            grpc = type != null && type.regionMatches(true, 0, GRPC, 0, GRPC.length());
            for (UsageMeter meter : meters) {
                meter.request(headers);
            }
        }

        @Override
        public void readingRest() {
            readingRest = true;
        }

        @Override
        public void head(int status, MultiMap headers) {
            answered = true;
            for (UsageMeter meter : meters) {
                meter.head(status, headers);
            }
        }

        @Override
        public void body(Buffer chunk) {
            for (UsageMeter meter : meters) {
                meter.body(chunk);
            }
        }

        /**
         * While a usage in the body is still to come: a client that leaves then does not stop the metering. Not for
         * a gRPC call, whose cancel reaches the upstream at once (the call is charged {@code otherwise}).
         */
        @Override
        public boolean readsRest() {
            if (closed || grpc) {
                return false;
            }
            for (UsageMeter meter : meters) {
                if (!meter.known()) {
                    return true;
                }
            }
            return false;
        }

        @Override
        public void ended(boolean whole) {
            if (closed) {
                return;
            }
            closed = true;
            release();
            if (charged.isEmpty()) {
                return;
            }
            if (!answered) {
                // the backend was unreachable or silent: no answer used anything, and the reservation stands
                charged.forEach(d -> count(d.rule(), Outcome.UNFINISHED));
                return;
            }
            if (meters.length == 1) { // the common case: one rule settles, no lists to build
                RuleDecision d = charged.get(0);
                Charge charge = charge(d, whole ? meters[0].end() : meters[0].cut(), whole);
                if (charge != null) {
                    sent(d, store.settle(List.of(d.bucket()), List.of(charge.delta())), charge.ground());
                }
                return;
            }
            List<RuleDecision> settling = new ArrayList<>(meters.length);
            List<Long> deltas = new ArrayList<>(meters.length);
            List<Ground> grounds = new ArrayList<>(meters.length);
            for (int i = 0; i < meters.length; i++) {
                Charge charge = charge(charged.get(i), whole ? meters[i].end() : meters[i].cut(), whole);
                if (charge != null) {
                    settling.add(charged.get(i));
                    deltas.add(charge.delta());
                    grounds.add(charge.ground());
                }
            }
            if (!settling.isEmpty()) {
                settle(settling, deltas, grounds);
            }
        }

        @Override
        public void cancel() {
            if (!closed) {
                closed = true;
                release();
            }
        }

        /** Gives the slots back, once: at the exchange's end, its cancel, or the renewal that finds it over. */
        private void release() {
            if (released) {
                return;
            }
            released = true;
            if (renewals >= 0) {
                vertx.cancelTimer(renewals);
            }
            for (RuleDecision d : slotted) {
                store.releaseSlot(d.bucket()).onFailure(err -> LOG.debugf("slot of %s not given back (it expires): %s",
                        d.rule().id(), err.toString()));
            }
        }
    }

    /**
     * What {@code d}'s answer owes beyond the cost its check spent: by {@code usage} when it is one, else the
     * rule's {@code settle.otherwise}; null when there is nothing to send (the charge is the reservation). Each
     * outcome counted; {@code whole}: the answer reached the client whole.
     */
    private Charge charge(RuleDecision d, Usage usage, boolean whole) {
        long cost = d.bucket().policy().cost();
        if (usage instanceof Usage.Used used && used.units() <= maxUsage) {
            if (used.units() == cost) {
                count(d.rule(), Outcome.SETTLED); // the reservation was exact: nothing to send
                return null;
            }
            return new Charge(used.units() - cost, Ground.USAGE);
        }
        if (usage instanceof Usage.Used used) {
            invalid(d.rule(), Long.toString(used.units()), "above tollgate.settle.max-usage (" + maxUsage + ")");
        } else if (usage instanceof Usage.Invalid bad) {
            invalid(d.rule(), bad.value(), bad.why());
        } else {
            count(d.rule(), whole ? Outcome.ABSENT : Outcome.UNFINISHED);
        }
        long otherwise = d.rule().settle().otherwiseOr(cost);
        if (!whole) {
            // cut short (its client left and the rest could not be read, or it broke off): the reservation stands
            // whatever otherwise says, so leaving early never gives any of it back
            otherwise = Math.max(otherwise, cost);
        }
        return otherwise == cost ? null : new Charge(otherwise - cost, Ground.OTHERWISE);
    }

    /**
     * Sends {@code deltas} of {@code settling}'s buckets, each on its {@code grounds}, one call per hash tag (one
     * rule's: {@link RequestSettlement#ended}).
     */
    private void settle(List<RuleDecision> settling, List<Long> deltas, List<Ground> grounds) {
        boolean[] sent = new boolean[settling.size()];
        for (int i = 0; i < settling.size(); i++) {
            if (sent[i]) {
                continue;
            }
            String tag = settling.get(i).tag();
            List<RuleDecision> group = new ArrayList<>(1);
            List<Bucket> buckets = new ArrayList<>(1);
            List<Long> amounts = new ArrayList<>(1);
            List<Ground> why = new ArrayList<>(1);
            for (int j = i; j < settling.size(); j++) {
                if (!sent[j] && settling.get(j).tag().equals(tag)) {
                    sent[j] = true;
                    group.add(settling.get(j));
                    buckets.add(settling.get(j).bucket());
                    amounts.add(deltas.get(j));
                    why.add(grounds.get(j));
                }
            }
            sent(group, store.settle(buckets, amounts), why);
        }
    }

    /** A give-back of what {@code decisions} spent, as {@link #settle(List, List, List)} sends it. */
    private void settle(List<RuleDecision> decisions, List<Long> deltas, Ground ground) {
        settle(decisions, deltas, Collections.nCopies(decisions.size(), ground));
    }

    /** Counts what became of {@code group}'s settlements, all sent in one call, each on its {@code grounds}. */
    private void sent(List<RuleDecision> group, Future<?> call, List<Ground> grounds) {
        call.onComplete(done -> {
            for (int i = 0; i < group.size(); i++) {
                if (grounds.get(i) == Ground.USAGE) {
                    count(group.get(i).rule(), done.succeeded() ? Outcome.SETTLED : Outcome.FAILED);
                } else if (grounds.get(i) == Ground.OTHERWISE && done.failed()) {
                    // the answer's outcome (absent, invalid, unfinished) is counted already
                    count(group.get(i).rule(), Outcome.FAILED);
                }
            }
            if (done.failed()) {
                LOG.debugf("%s of %s not sent: %s", grounds.get(0).failure, group.get(0).tag(),
                        done.cause().toString());
            }
        });
    }

    /** Sends one rule's charge: {@link #sent(List, Future, List)} for a group of one. */
    private void sent(RuleDecision d, Future<?> call, Ground ground) {
        sent(List.of(d), call, List.of(ground));
    }

    private void invalid(Rule rule, String value, String why) {
        count(rule, Outcome.INVALID);
        long now = System.nanoTime();
        Long last = loggedAt.get(rule.id());
        if ((last == null || now - last >= LOG_EVERY_NANOS) && (last == null
                ? loggedAt.putIfAbsent(rule.id(), now) == null
                : loggedAt.replace(rule.id(), last, now))) {
            LOG.warnf("rule %s: ignored the usage \"%s\" of an answer (%s); it is charged settle.otherwise (%d)."
                    + " Logged once a minute per rule; tollgate_settlements_total{outcome=\"invalid\"} counts them"
                    + " all", rule.id(), value, why, rule.settle().otherwiseOr(rule.cost()));
        }
    }

    /** {@code tollgate_settlements_total{rule,outcome}}: one map lookup by rule id and an array read. */
    private void count(Rule rule, Outcome outcome) {
        Counter[] byOutcome = counters.computeIfAbsent(rule.id(), id -> new Counter[OUTCOMES.length]);
        Counter counter = byOutcome[outcome.ordinal()];
        if (counter == null) {
            // registration is idempotent: a racing one gets the same counter
            counter = Counter.builder("tollgate.settlements")
                    .description("answers of rules with settle, by what became of their usage: settled, absent,"
                            + " invalid, unfinished (the answer was cut short, or its rest past its bounds; those three are charged"
                            + " settle.otherwise), failed (the store did not take it)")
                    .tag("rule", rule.id())
                    .tag("outcome", outcome.name().toLowerCase(java.util.Locale.ROOT))
                    .register(registry);
            byOutcome[outcome.ordinal()] = counter;
        }
        counter.increment();
    }

    /** Why a settlement is sent: an answer's usage, its rule's {@code settle.otherwise}, or a give-back. */
    private enum Ground {

        USAGE("settlement (the reservation stands)"), OTHERWISE(
                "charge of settle.otherwise (the reservation stands)"), GIVE_BACK(
                        "give-back (its tokens come back as the bucket refills)");

        /** What a failed call of this ground left, for the debug log. */
        final String failure;

        Ground(String failure) {
            this.failure = failure;
        }
    }

    /** What an answer owes beyond its reservation, and why. */
    private record Charge(long delta, Ground ground) {
    }

    /** What became of an answer's usage: the {@code outcome} label. */
    private enum Outcome {
        SETTLED, ABSENT, INVALID, UNFINISHED, FAILED
    }

    private static final Outcome[] OUTCOMES = Outcome.values();
}
