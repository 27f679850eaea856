package io.tollgate.gateway.rules;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Optional;

import org.jboss.logging.Logger;

import io.tollgate.rules.domain.RuleCodec;
import io.tollgate.rules.domain.RuleSet;
import io.tollgate.rules.domain.RuleValidationException;
import io.tollgate.rules.domain.WireFormat;

/**
 * The last good rule set on disk, so a gateway started while the rules service is down still enforces
 * its rules, and beside it ({@code <file>.gateways}) the last live-gateway count, so it shares each limit
 * as the fleet last did. Each is written to a temporary file and moved into place atomically: a crash
 * mid-write leaves the previous one whole. Blocking: call from a worker thread.
 */
final class RulesSnapshot {

    private static final Logger LOG = Logger.getLogger(RulesSnapshot.class);

    private final Path file;
    private final Path gatewaysFile;
    private final RuleCodec codec;

    RulesSnapshot(Path file, RuleCodec codec) {
        this.file = file.toAbsolutePath();
        this.gatewaysFile = this.file.resolveSibling(this.file.getFileName() + ".gateways");
        this.codec = codec;
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
            replace(gatewaysFile, Integer.toString(count));
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
            replace(file, codec.write(set));
        } catch (IOException e) {
            LOG.warnf("could not write rules snapshot %s: %s", file, e.toString());
        }
    }

    /** Writes {@code text} to a temporary file beside {@code target}, then moves it into place. */
    private static void replace(Path target, String text) throws IOException {
        Path dir = target.getParent();
        Files.createDirectories(dir);
        Path tmp = Files.createTempFile(dir, target.getFileName().toString(), ".tmp");
        Files.write(tmp, text.getBytes(StandardCharsets.UTF_8));
        try {
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
        }
    }
}
