package io.tollgate.counter;

import java.util.HashMap;
import java.util.Map;

/**
 * The reference model of {@code concurrency.lua}: at most limit slots live at once, a slot living until its
 * expiry or its release.
 */
final class ConcurrencyModel implements CounterModel {

    static final ConcurrencyModel INSTANCE = new ConcurrencyModel();

    /**
     * Stored as a sorted set: member the slot id as decimal text, score its expiry in Unix µs.
     *
     * @param slots
     * slot id to expiry in Unix µs, expired ones included until a check writes (as {@code ZREMRANGEBYSCORE})
     * @param expiresAt
     * the key's expiry in Unix µs: the latest expiry of the slots taken since the key was made (a slot given
     * back leaves it; {@code PEXPIREAT ... GT}), so never before the latest live slot's
     */
    record State(Map<Long, Long> slots, long expiresAt) implements BucketState {

        State {
            slots = Map.copyOf(slots);
        }

        @Override
        public double expiresAtMicros() {
            return expiresAt;
        }

        /** How many slots count at now: their expiry is after it ({@code ZCOUNT key (now +inf}). */
        long live(long nowMicros) {
            return slots.values().stream().filter(expiry -> expiry > nowMicros).count();
        }

        /** Without slot {@code slotId} ({@code ZREM}); null when no slot is left (Redis drops the empty key). */
        State release(long slotId) {
            Map<Long, Long> left = new HashMap<>(slots);
            left.remove(slotId);
            return left.isEmpty() ? null : new State(left, expiresAt);
        }
    }

    private ConcurrencyModel() {
    }

    /** {@code cost} is 1 (the policy says so); a state of another algorithm counts as no slot. */
    @Override
    public Step decide(BucketState stored, Policy policy, long nowMicros, long cost) {
        long live = stored instanceof State s ? s.live(nowMicros) : 0;
        long free = Math.max(0, policy.limit() - live);
        if (live + 1 <= policy.limit()) {
            Map<Long, Long> next = new HashMap<>();
            if (live > 0) {
                ((State) stored).slots().forEach((id, expiry) -> {
                    if (expiry > nowMicros) {
                        next.put(id, expiry);
                    }
                });
            }
            long expiry = nowMicros + policy.periodMs() * 1000;
            next.put(policy.slotId(), expiry);
            // the only slot: the key expires with it; else the later of the key's expiry and this slot's
            long keyExpiry = next.size() == 1 ? expiry : Math.max(((State) stored).expiresAt(), expiry);
            return new Step(new Decision(true, policy.limit() - live - 1, 0, 0), new State(next, keyExpiry), free, 0);
        }
        return new Step(new Decision(false, free, 0, 0), null, free, 0);
    }

    /**
     * A release ({@code delta} -1): the slot named by the policy is given back; a renewal ({@code delta} 0): that
     * slot, when live, ends {@code periodMs} from now and the key lives as long (a slot expired or given back stays
     * gone). The reply is 1, 0, 0, 0 (the key is not read). The next state is null when no slot is left (the key
     * goes).
     */
    @Override
    public Step settle(BucketState stored, Policy policy, long nowMicros, long delta) {
        if (delta != -1 && delta != 0) {
            throw new IllegalArgumentException("a concurrency key is settled only by -1 (its slot given back) or 0"
                    + " (its slot renewed)");
        }
        State held = stored instanceof State s ? s : null;
        if (delta == -1) {
            return new Step(new Decision(true, 0, 0, 0), held == null ? null : held.release(policy.slotId()), 0, 0);
        }
        Long expiry = held == null ? null : held.slots().get(policy.slotId());
        if (expiry == null || expiry <= nowMicros) {
            return new Step(new Decision(true, 0, 0, 0), held, 0, 0);
        }
        long renewed = Math.max(expiry, nowMicros + policy.periodMs() * 1000);
        Map<Long, Long> slots = new HashMap<>(held.slots());
        slots.put(policy.slotId(), renewed);
        return new Step(new Decision(true, 0, 0, 0), new State(slots, Math.max(held.expiresAt(), renewed)), 0, 0);
    }

    /** Exists while a slot is live; remaining is limit - live slots. */
    @Override
    public Peek peek(BucketState stored, Policy policy, long nowMicros) {
        long live = stored instanceof State s ? s.live(nowMicros) : 0;
        return new Peek(live > 0, Math.max(0, policy.limit() - live), 0);
    }
}
