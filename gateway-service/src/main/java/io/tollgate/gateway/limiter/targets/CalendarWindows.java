package io.tollgate.gateway.limiter.targets;

import java.time.Instant;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

import io.tollgate.counter.CounterKeys;
import io.tollgate.counter.Policy;
import io.tollgate.gateway.store.Bucket;
import io.tollgate.rules.domain.CalendarWindow;
import io.tollgate.rules.domain.Effective;
import io.tollgate.rules.domain.Rule;

/**
 * The current window of each calendar rule ({@code fixed_window} with {@code calendar}), worked out from this
 * gateway's clock once per window and rule version, not per request: a request's bucket of such a rule is the
 * window's key ({@link CounterKeys#windowed}) under a policy that names the window's end, so the count starts
 * afresh at the boundary and {@code t} counts to it. The store decides with its own clock: gateways whose
 * clocks differ by a few milliseconds may count a request at the boundary in the window either side of it.
 */
public final class CalendarWindows {

    /** A rule version and the window last worked out for it. */
    private record Current(Rule rule, CalendarWindow window) {
    }

    private final ConcurrentHashMap<String, Current> current = new ConcurrentHashMap<>();
    private final LongSupplier millisClock;

    public CalendarWindows(LongSupplier millisClock) {
        this.millisClock = millisClock;
    }

    /** The bucket of a calendar rule's window now, for the bucket {@code key} and policy the rule gives a client. */
    Bucket bucket(Rule rule, String key, Effective effective) {
        CalendarWindow window = window(rule);
        Policy policy = Policy.calendarWindow(effective.limit(), window.end().getEpochSecond(), rule.cost());
        return new Bucket(CounterKeys.windowed(key, window.label()), policy);
    }

    private CalendarWindow window(Rule rule) {
        Instant now = Instant.ofEpochMilli(millisClock.getAsLong());
        Current known = current.get(rule.id());
        if (known != null && known.rule() == rule && known.window().holds(now)) {
            return known.window();
        }
        CalendarWindow window = CalendarWindow.at(now, CalendarWindow.zone(rule.calendar()).orElseThrow(),
                CalendarWindow.length(rule.period()).orElseThrow());
        current.put(rule.id(), new Current(rule, window));
        return window;
    }
}
