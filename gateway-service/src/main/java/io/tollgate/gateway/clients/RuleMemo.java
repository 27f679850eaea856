package io.tollgate.gateway.clients;

import java.util.IdentityHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

import io.tollgate.rules.domain.Rule;

/**
 * What was worked out once for a rule, by the rule object itself (a new rule-set version brings new objects, so
 * nothing outlives the rules it was made for): read without a lock from an immutable map; a miss copies the
 * map with the new entry in, by compare-and-set. Bounded: past {@code max} entries it starts again empty.
 */
final class RuleMemo<V> {

    private final int max;
    private final AtomicReference<IdentityHashMap<Rule, V>> memo = new AtomicReference<>(new IdentityHashMap<>());

    RuleMemo(int max) {
        this.max = max;
    }

    /** What is kept for {@code rule}, or null. */
    V get(Rule rule) {
        return memo.get().get(rule);
    }

    /** What is kept for {@code rule}; on a miss, what {@code make} makes of it, kept. */
    V get(Rule rule, Function<Rule, V> make) {
        V known = get(rule);
        return known != null ? known : put(rule, make.apply(rule));
    }

    /** Keeps {@code value} for {@code rule} and returns it. */
    V put(Rule rule, V value) {
        while (true) {
            IdentityHashMap<Rule, V> now = memo.get();
            IdentityHashMap<Rule, V> next = now.size() >= max ? new IdentityHashMap<>() : new IdentityHashMap<>(now);
            next.put(rule, value);
            if (memo.compareAndSet(now, next)) {
                return value;
            }
        }
    }
}
