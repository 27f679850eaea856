package io.tollgate.bench.directory;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tollgate.gateway.clients.Directory;

/**
 * Writes the directory snapshot of {@link Generated}'s {@code clients} clients (API keys {@code client-<i>}) to a
 * file, as a gateway writes its own beside its rules snapshot, naming {@code source} as its rules service: a
 * gateway started with that snapshot and that rules URL serves the directory from it.
 * <p>
 * Arguments: clients, the file, the rules service URL.
 */
public final class SnapshotFile {

    private SnapshotFile() {
    }

    public static void main(String[] args) throws IOException {
        int clients = Integer.parseInt(args[0]);
        Path file = Path.of(args[1]);
        Directory directory = new Directory(new SimpleMeterRegistry());
        for (int p = 0; p < Generated.pages(DirectoryHeap.PAGE, clients); p++) {
            directory.apply(Generated.page(p, DirectoryHeap.PAGE, clients));
        }
        try (OutputStream out = Files.newOutputStream(file)) {
            directory.save(out, args[2]);
        }
        System.out.println("snapshot of " + directory.size() + " clients: " + file);
    }
}
