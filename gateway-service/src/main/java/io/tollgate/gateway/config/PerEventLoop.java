package io.tollgate.gateway.config;

import java.util.Collection;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import io.vertx.core.Context;

/**
 * One {@code T} per event-loop thread, made by that thread's first call: state only its loop touches (a
 * pinned connection, the checks of the loop's turn), found without locks on the request path.
 */
public final class PerEventLoop<T> {

    private final ConcurrentHashMap<Thread, T> byThread = new ConcurrentHashMap<>();
    private final Function<Thread, T> create;

    public PerEventLoop(Function<Thread, T> create) {
        this.create = create;
    }

    /** The calling thread's own, when {@code context} (the caller's current one) is an event loop's; else null. */
    public T of(Context context) {
        if (context == null || !context.isEventLoopContext()) {
            return null;
        }
        Thread thread = Thread.currentThread();
        T mine = byThread.get(thread); // every call: a plain read; the loop's first call makes its entry
        return mine != null ? mine : byThread.computeIfAbsent(thread, create);
    }

    /** Every loop's, e.g. to close them. */
    public Collection<T> all() {
        return byThread.values();
    }
}
