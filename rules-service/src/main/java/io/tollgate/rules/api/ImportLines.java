package io.tollgate.rules.api;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.tollgate.rules.domain.ClientDigest;
import io.tollgate.rules.domain.ClientEntry;
import io.tollgate.rules.domain.DirectoryCodec;
import io.tollgate.rules.domain.RuleValidationException;
import io.tollgate.rules.http.ApiKeys;
import io.tollgate.rules.store.ImportBatch;
import io.tollgate.rules.store.LineError;

/**
 * Reads the lines of a bulk import, one JSON object each: its {@code key} (digested here, then dropped) and the
 * client entry the rest is, read by THE directory codec. A line's tree lives only while it is read. Errors name
 * the line and field and never show the key (the codec quotes neither a text it cannot read nor a key).
 */
final class ImportLines {

    static final String KEY = DirectoryCodec.KEY;

    private final DirectoryCodec codec;

    ImportLines(DirectoryCodec codec) {
        this.codec = codec;
    }

    /** One line as it came, with its number. */
    record Raw(long number, byte[] bytes) {
    }

    /** Every line of {@code raw} read. */
    ImportBatch read(List<Raw> raw) {
        List<ImportBatch.Line> lines = new ArrayList<>(raw.size());
        List<LineError> errors = new ArrayList<>();
        for (Raw line : raw) {
            ImportBatch.Line read = read(line, errors);
            if (read != null) {
                lines.add(read);
            }
        }
        return new ImportBatch(lines, errors, false);
    }

    private ImportBatch.Line read(Raw raw, List<LineError> errors) {
        try {
            JsonNode node = codec.tree(raw.bytes());
            // the key is taken out first: what the codec reads and reports is the entry alone
            String digest = node instanceof ObjectNode object ? digest(raw.number(), object.remove(KEY), errors) : null;
            ClientEntry entry = codec.client(node);
            return digest == null ? null : new ImportBatch.Line(raw.number(), digest, entry);
        } catch (RuleValidationException e) {
            e.errors().forEach(error -> errors.add(LineError.of(raw.number(), error)));
            return null;
        }
    }

    /** The digest of the line's key, or {@code null} with the reason noted; the key itself is never shown. */
    private static String digest(long number, JsonNode key, List<LineError> errors) {
        String reason = null;
        if (key == null || key.isNull()) {
            reason = "is required";
        } else if (!key.isTextual()) {
            reason = "must be a string";
        } else if (key.textValue().isEmpty()) {
            reason = "must not be empty";
        } else if (key.textValue().getBytes(StandardCharsets.UTF_8).length > ApiKeys.MAX_KEY_BYTES) {
            reason = "must be at most " + ApiKeys.MAX_KEY_BYTES + " bytes";
        }
        if (reason != null) {
            errors.add(new LineError(number, KEY, null, reason));
            return null;
        }
        return ClientDigest.of(key.textValue());
    }
}
