package io.tollgate.e2e.support;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Busy-spinning threads that keep the machine's cores occupied, as other work on a crowded host would: the
 * services under test then wait for a core like they do there. Each thread stops on {@link #close()} or after
 * {@code atMost}, whichever comes first, so a test that fails to close it cannot leave the machine saturated.
 */
public final class CpuBurner implements AutoCloseable {

    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean stopped;
    /** Written by the spinners so the JIT cannot drop their loop as dead code. */
    private volatile long sink;

    private CpuBurner(int threadCount, Duration atMost) {
        long deadline = System.nanoTime() + atMost.toNanos();
        for (int i = 0; i < threadCount; i++) {
            Thread thread = new Thread(() -> spin(deadline), "cpu-burner-" + i);
            thread.setDaemon(true);
            threads.add(thread);
            thread.start();
        }
    }

    /** Starts {@code threads} spinning threads, each for at most {@code atMost}. */
    public static CpuBurner start(int threads, Duration atMost) {
        return new CpuBurner(threads, atMost);
    }

    private void spin(long deadline) {
        long x = 1;
        while (!stopped && System.nanoTime() < deadline) {
            for (int i = 0; i < 10_000; i++) {
                x = x * 6364136223846793005L + 1442695040888963407L;
            }
            sink = x;
        }
    }

    @Override
    public void close() {
        stopped = true;
        for (Thread thread : threads) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
