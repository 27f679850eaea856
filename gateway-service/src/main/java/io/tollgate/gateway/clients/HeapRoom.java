package io.tollgate.gateway.clients;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;

/**
 * Whether the heap holds the client directory. The copy lives in the old generation with the gateway's own
 * long-lived data, so that is the room that counts: under load a gateway with an empty directory keeps 14 MB
 * after a full GC (rounded up to {@link #BASE_BYTES}), and the directory takes about 38 bytes a client, twice
 * while a large change is applied (the copy in force and the next: {@link #BYTES_PER_CLIENT}); {@code
 * bench/directory/throughput.sh} and {@code run.sh} measure both. An old generation short of that is collected
 * whole again and again, at a cost in CPU to every request.
 *
 * @param oldBytes the most the old generation may hold
 * @param heapBytes the heap as {@code -Xmx} sets it, for advice in its terms
 */
record HeapRoom(long oldBytes, long heapBytes) {

    /** What the old generation holds besides the directory. */
    static final long BASE_BYTES = 16L << 20;
    static final long BYTES_PER_CLIENT = 80;

    /** The room of this JVM: its old generation's pool (the whole heap when the collector names none). */
    static HeapRoom ofThisJvm() {
        long heap = Runtime.getRuntime().maxMemory();
        long old = heap;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            String name = pool.getName();
            long max = pool.getUsage() == null ? -1 : pool.getUsage().getMax();
            if (pool.getType() == MemoryType.HEAP && max > 0 && (name.contains("Old") || name.contains("Tenured"))) {
                old = Math.min(max, heap);
            }
        }
        return new HeapRoom(old, Math.max(heap, xmx()));
    }

    /** Whether the old generation holds {@code clients} clients and the gateway's own data. */
    boolean holds(int clients) {
        return needed(clients) <= oldBytes;
    }

    /** The {@code -Xmx}, in MB, at which the old generation holds {@code clients} clients, as it shares the heap now. */
    long xmxMbFor(int clients) {
        double share = (double) oldBytes / heapBytes;
        return (long) Math.ceil(needed(clients) / share / (1 << 20));
    }

    /** {@link #heapBytes} in MB, as {@code -Xmx} spells it. */
    long heapMb() {
        return heapBytes >> 20;
    }

    static long needed(int clients) {
        return BASE_BYTES + BYTES_PER_CLIENT * clients;
    }

    /**
     * {@code -Xmx} as given: {@code Runtime.maxMemory()} leaves out a survivor space under the serial and parallel
     * collectors, so a gateway given {@code -Xmx64m} would read 61 MB. 0 where the VM does not say (a native image).
     */
    private static long xmx() {
        try {
            return Long.parseLong(ManagementFactory.getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class)
                    .getVMOption("MaxHeapSize").getValue());
        } catch (RuntimeException | LinkageError unknown) {
            return 0;
        }
    }
}
