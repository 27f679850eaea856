package io.tollgate.gateway.support;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tollgate.gateway.clients.Directory;
import io.tollgate.rules.domain.DirectoryChanges;
import io.tollgate.rules.domain.DirectoryCodec;
import io.vertx.core.json.JsonObject;

/** Writes the directory snapshot a gateway keeps beside its rules snapshot, with the gateway's own code. */
final class DirectorySnapshots {

    private DirectorySnapshots() {
    }

    /**
     * Writes {@code <rulesSnapshot>.directory}: the directory of {@code changes} (as {@link TestDirectory#push}
     * takes them, raw keys digested), as kept from the rules service at {@code source}.
     */
    static void write(Path rulesSnapshot, String source, String changes) throws IOException {
        TestDirectory served = new TestDirectory();
        served.push(new JsonObject(changes));
        Directory directory = new Directory(new SimpleMeterRegistry());
        DirectoryCodec codec = new DirectoryCodec();
        DirectoryChanges page;
        do {
            page = codec.parseChanges(served.page(directory.seq(), Integer.MAX_VALUE).body()
                    .getBytes(StandardCharsets.UTF_8));
            directory.apply(page);
        } while (page.more());
        try (OutputStream out = Files.newOutputStream(rulesSnapshot.resolveSibling(rulesSnapshot.getFileName()
                + ".directory"))) {
            directory.save(out, source);
        }
    }
}
