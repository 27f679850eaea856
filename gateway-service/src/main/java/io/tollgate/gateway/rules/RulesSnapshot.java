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
 * its rules. Written to a temporary file beside it and moved into place atomically: a crash mid-write
 * leaves the previous snapshot whole. Blocking: call from a worker thread.
 */
final class RulesSnapshot {

    private static final Logger LOG = Logger.getLogger(RulesSnapshot.class);

    private final Path file;
    private final RuleCodec codec;

    RulesSnapshot(Path file, RuleCodec codec) {
        this.file = file.toAbsolutePath();
        this.codec = codec;
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
            Path dir = file.getParent();
            Files.createDirectories(dir);
            Path tmp = Files.createTempFile(dir, file.getFileName().toString(), ".tmp");
            Files.write(tmp, codec.write(set).getBytes(StandardCharsets.UTF_8));
            try {
                Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            LOG.warnf("could not write rules snapshot %s: %s", file, e.toString());
        }
    }
}
