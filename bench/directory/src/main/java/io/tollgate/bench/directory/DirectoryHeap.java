package io.tollgate.bench.directory;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.charset.StandardCharsets;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tollgate.gateway.clients.Directory;
import io.tollgate.rules.domain.DirectoryChanges;
import io.tollgate.rules.domain.DirectoryCodec;

/**
 * The heap a copy of the directory keeps, and what loading it costs: the used heap after a full GC before and
 * after applying {@code clients} generated clients ({@link Generated}) page by page (each page dropped once
 * applied, as the gateway does), the CPU time to read the same pages as JSON (parse, check every entry, gather and
 * build: a gateway's first sync without a snapshot), the snapshot's size and the CPU time to write and read it,
 * and to apply a page of 100 changes to the full copy. Prints {@code name: value} lines (times in this thread's
 * CPU ms).
 */
public final class DirectoryHeap {

    static final int PAGE = 10_000;

    private DirectoryHeap() {
    }

    public static void main(String[] args) throws IOException {
        int clients = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        Generated.page(0, 10, 10); // classes loaded before the first measure
        long before = usedAfterGc(memory);
        Directory directory = new Directory(new SimpleMeterRegistry());
        for (int p = 0; p < Generated.pages(PAGE, clients); p++) {
            directory.apply(Generated.page(p, PAGE, clients));
        }
        long after = usedAfterGc(memory);
        System.out.println("clients: " + directory.size());
        System.out.println("retained_heap_bytes: " + (after - before));
        System.out.println("retained_bytes_per_client: " + String.format("%.1f", (after - before) / (double) clients));

        ByteArrayOutputStream file = new ByteArrayOutputStream();
        long start = cpuNanos();
        directory.save(file, "http://rules");
        System.out.println("snapshot_bytes: " + file.size());
        System.out.println("snapshot_write_ms: " + (cpuNanos() - start) / 1_000_000);
        Directory restored = new Directory(new SimpleMeterRegistry());
        start = cpuNanos();
        restored.restore(new ByteArrayInputStream(file.toByteArray()));
        System.out.println("snapshot_read_ms: " + (cpuNanos() - start) / 1_000_000);
        if (restored.size() != directory.size()) {
            throw new IllegalStateException("the snapshot read back " + restored.size() + " clients");
        }
        file = null;
        restored = null;
        smallPages(directory, clients);
        directory = null;
        jsonLoad(clients);
    }

    /** A change as the watch stream brings it: a page of 100 clients applied to the full copy, published. */
    private static void smallPages(Directory directory, int clients) {
        int rounds = 20;
        long nanos = 0;
        for (int r = 0; r < rounds; r++) {
            DirectoryChanges page = Generated.page(r * 37, 100, clients);
            long t0 = cpuNanos();
            directory.apply(page);
            nanos += cpuNanos() - t0;
        }
        System.out.println("apply_page_of_100_to_full_copy_ms: " + String.format("%.2f", nanos / 1e6 / rounds));
    }

    /**
     * A first sync from the rules service, less the network: each page as JSON, parsed, checked and gathered into
     * a copy built from nothing, put in force at the end (as a gateway without a snapshot does).
     */
    private static void jsonLoad(int clients) {
        DirectoryCodec codec = new DirectoryCodec();
        Directory directory = new Directory(new SimpleMeterRegistry());
        Directory.NextCopy rebuild = directory.fromNothing();
        long parseNanos = 0;
        long applyNanos = 0;
        long bytes = 0;
        for (int p = 0; p < Generated.pages(PAGE, clients); p++) {
            byte[] json = codec.write(Generated.page(p, PAGE, clients)).getBytes(StandardCharsets.UTF_8);
            bytes += json.length;
            long t0 = cpuNanos();
            DirectoryChanges page = codec.parseChanges(json);
            long t1 = cpuNanos();
            rebuild.apply(page);
            applyNanos += cpuNanos() - t1;
            parseNanos += t1 - t0;
        }
        long t0 = cpuNanos();
        directory.replace(rebuild);
        applyNanos += cpuNanos() - t0;
        System.out.println("json_pages_bytes: " + bytes);
        System.out.println("json_parse_ms: " + parseNanos / 1_000_000);
        System.out.println("json_gather_and_build_ms: " + applyNanos / 1_000_000);
        System.out.println("json_loaded_clients: " + directory.size());
    }

    /** This thread's CPU time: what the work costs, whatever else the machine runs. */
    private static long cpuNanos() {
        return ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
    }

    private static long usedAfterGc(MemoryMXBean memory) {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return memory.getHeapMemoryUsage().getUsed();
    }
}
