package io.tollgate.gateway.sync;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Optional;

import org.jboss.logging.Logger;

import io.tollgate.gateway.clients.Directory;
import io.tollgate.rules.domain.RuleCodec;
import io.tollgate.rules.domain.RuleSet;
import io.tollgate.rules.domain.RuleValidationException;
import io.tollgate.rules.domain.WireFormat;

/**
 * The last good rule set on disk, so a gateway started while the rules service is down still enforces
 * its rules, and beside it ({@code <file>.gateways}) the last live-gateway count, so it shares each limit
 * as the fleet last did, and ({@code <file>.directory}) the client directory, so it knows every plan and
 * override it knew. Each is written to a temporary file and moved into place atomically: a crash
 * mid-write leaves the previous one whole. Blocking: call from a worker thread.
 */
final class RulesSnapshot {

    private static final Logger LOG = Logger.getLogger(RulesSnapshot.class);

    private final Path file;
    private final Path gatewaysFile;
    private final Path directoryFile;
    private final RuleCodec codec;

    RulesSnapshot(Path file, RuleCodec codec) {
        this.file = file.toAbsolutePath();
        this.gatewaysFile = this.file.resolveSibling(this.file.getFileName() + ".gateways");
        this.directoryFile = this.file.resolveSibling(this.file.getFileName() + ".directory");
        this.codec = codec;
    }

    /**
     * Puts the kept directory in force in {@code directory}; empty when there is none or it is unusable (then the
     * directory stays as it was).
     *
     * @return the rules service the kept directory came from
     */
    Optional<String> readDirectory(Directory directory) {
        if (!Files.isRegularFile(directoryFile)) {
            return Optional.empty();
        }
        try (InputStream in = Files.newInputStream(directoryFile)) {
            return Optional.of(directory.restore(in));
        } catch (IOException | RuntimeException e) {
            LOG.warnf("directory snapshot %s is unusable, ignored: %s", directoryFile, e.getMessage());
            return Optional.empty();
        }
    }

    /** Replaces the kept directory with the one in force, from {@code source}; a failure is logged, never thrown. */
    void writeDirectory(Directory directory, String source) {
        try {
            replace(directoryFile, out -> directory.save(out, source));
        } catch (IOException e) {
            LOG.warnf("could not write directory snapshot %s: %s", directoryFile, e.toString());
        }
    }

    /** The live-gateway count kept beside the snapshot; 0 when there is none or it is unreadable. */
    int readGateways() {
        try {
            return Files.isRegularFile(gatewaysFile)
                    ? Math.max(0, Integer.parseInt(Files.readString(gatewaysFile).strip()))
                    : 0;
        } catch (IOException | NumberFormatException e) {
            LOG.warnf("live-gateway count %s is unusable, ignored: %s", gatewaysFile, e.getMessage());
            return 0;
        }
    }

    /** Replaces the kept live-gateway count; a failure is logged, never thrown. */
    void writeGateways(int count) {
        try {
            replace(gatewaysFile, text(Integer.toString(count)));
        } catch (IOException e) {
            LOG.warnf("could not write live-gateway count %s: %s", gatewaysFile, e.toString());
        }
    }

    /** The snapshot's rule set, validated like any other; empty when there is none or it is unusable. */
    Optional<RuleSet> read() {
        if (!Files.isRegularFile(file)) {
            return Optional.empty();
        }
        try {
            return Optional.of(codec.parseRuleSet(Files.readAllBytes(file), WireFormat.JSON));
        } catch (IOException | RuleValidationException e) {
            LOG.warnf("rules snapshot %s is unusable, ignored: %s", file, e.getMessage());
            return Optional.empty();
        }
    }

    /** Replaces the snapshot with {@code set}; a failure is logged, never thrown (the set is in force anyway). */
    void write(RuleSet set) {
        try {
            replace(file, text(codec.write(set)));
        } catch (IOException e) {
            LOG.warnf("could not write rules snapshot %s: %s", file, e.toString());
        }
    }

    /** What writes a file's content. */
    private interface Content {

        void writeTo(OutputStream out) throws IOException;
    }

    private static Content text(String text) {
        return out -> out.write(text.getBytes(StandardCharsets.UTF_8));
    }

    /** Writes {@code content} to a temporary file beside {@code target}, then moves it into place. */
    private static void replace(Path target, Content content) throws IOException {
        Path dir = target.getParent();
        Files.createDirectories(dir);
        Path tmp = Files.createTempFile(dir, target.getFileName().toString(), ".tmp");
        try (OutputStream out = Files.newOutputStream(tmp)) {
            content.writeTo(out);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(tmp);
            throw e;
        }
        try {
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
        }
    }
}
