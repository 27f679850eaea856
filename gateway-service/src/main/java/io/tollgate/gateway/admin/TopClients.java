package io.tollgate.gateway.admin;

import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.enterprise.context.ApplicationScoped;

import io.tollgate.counter.CounterKeys;
import io.tollgate.gateway.config.AdminConfig;
import io.tollgate.gateway.limiter.rejection.RejectedClients;

/**
 * The clients this gateway rejected most, per rule, over the last minutes ({@code tollgate.admin.top.window}): a
 * {@link RejectionWindow} of bounded sketches per rule, fed by the limiter on every rejection. Clients are held
 * as the SHA-256 hex digest of their key, never the key itself, and never become metric labels; a secret's digest
 * is the one its request already worked out.
 */
@ApplicationScoped
class TopClients implements RejectedClients {

    private final int capacity;
    private final long halfNanos;
    private final ConcurrentHashMap<String, RejectionWindow> byRule = new ConcurrentHashMap<>();

    TopClients(AdminConfig config) {
        this.capacity = config.top().capacity();
        this.halfNanos = config.top().window().toNanos() / 2;
    }

    @Override
    public void rejected(String ruleId, CounterKeys.Client client) {
        String digest = client.sha256();
        byRule.computeIfAbsent(ruleId, id -> new RejectionWindow(capacity, halfNanos, System::nanoTime)).add(digest);
    }

    /** The {@code n} clients rejected most under {@code ruleId}; none when it rejected nobody lately. */
    RejectionWindow.Top top(String ruleId, int n) {
        RejectionWindow window = byRule.get(ruleId);
        return window == null ? new RejectionWindow.Top(List.of(), 0) : window.top(n);
    }

    /** The most clients {@link #top} names. */
    int capacity() {
        return capacity;
    }
}
