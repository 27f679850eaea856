package io.tollgate.rules.http;

import java.util.List;
import java.util.function.Supplier;

import jakarta.enterprise.context.ApplicationScoped;

import io.tollgate.rules.domain.ClientEntry;
import io.tollgate.rules.domain.DirectoryCodec;
import io.tollgate.rules.domain.Rule;
import io.tollgate.rules.domain.RuleCodec;
import io.tollgate.rules.domain.RuleValidationException;
import io.tollgate.rules.domain.TenantEntry;
import io.tollgate.rules.domain.WireFormat;
import io.tollgate.rules.store.EntryRejectedException;

/**
 * Request bodies to rules (JSON or YAML) and directory entries (JSON), through THE rules-domain codecs, at most 64
 * KiB. A directory entry that does not read is a 422 naming every bad field, as one that does not fit the rules.
 */
@ApplicationScoped
public class Bodies {

    /** The largest rule or rule set body accepted. */
    public static final long MAX_BODY_BYTES = 64 * 1024;

    private final RuleCodec codec;
    private final DirectoryCodec directory;

    Bodies(RuleCodec codec, DirectoryCodec directory) {
        this.codec = codec;
        this.directory = directory;
    }

    /** One client entry. */
    public ClientEntry client(byte[] body) {
        return entry(() -> directory.parseClient(checked(body)));
    }

    /** One tenant entry. */
    public TenantEntry tenant(byte[] body) {
        return entry(() -> directory.parseTenant(checked(body)));
    }

    private static <T> T entry(Supplier<T> read) {
        try {
            return read.get();
        } catch (RuleValidationException e) {
            throw new EntryRejectedException(e.errors());
        }
    }

    /** One rule from a body whose format the Content-Type names (YAML) or the first character tells. */
    public Rule rule(byte[] body, String contentType) {
        return codec.parseRule(checked(body), format(body, contentType));
    }

    /** A whole rule set (its version, if any, is ignored) or a bare list of rules. */
    public List<Rule> rules(byte[] body, String contentType) {
        return codec.parseRules(checked(body), format(body, contentType));
    }

    private static byte[] checked(byte[] body) {
        byte[] b = body == null ? new byte[0] : body;
        if (b.length > MAX_BODY_BYTES) {
            throw new ProblemException(tooLarge());
        }
        return b;
    }

    /** The answer to a body larger than {@link #MAX_BODY_BYTES}. */
    public static Problem tooLarge() {
        return new Problem("payload-too-large", "Body too large", 413,
                "a rule or rule set body may be at most " + MAX_BODY_BYTES + " bytes");
    }

    private static WireFormat format(byte[] body, String contentType) {
        if (contentType != null && WireFormat.ofMediaType(contentType) == WireFormat.YAML) {
            return WireFormat.YAML;
        }
        return body == null ? WireFormat.JSON : WireFormat.sniff(body);
    }
}
