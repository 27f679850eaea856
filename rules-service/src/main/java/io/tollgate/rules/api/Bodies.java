package io.tollgate.rules.api;

import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;

import io.tollgate.rules.domain.Rule;
import io.tollgate.rules.domain.RuleCodec;
import io.tollgate.rules.domain.WireFormat;

/** Request bodies to rules, through THE rules-domain codec: JSON or YAML, at most 64 KiB. */
@ApplicationScoped
class Bodies {

    private final RuleCodec codec;

    Bodies(RuleCodec codec) {
        this.codec = codec;
    }

    /** One rule from a body whose format the Content-Type names (YAML) or the first character tells. */
    Rule rule(byte[] body, String contentType) {
        return codec.parseRule(checked(body), format(body, contentType));
    }

    /** A whole rule set (its version, if any, is ignored) or a bare list of rules. */
    List<Rule> rules(byte[] body, String contentType) {
        return codec.parseRules(checked(body), format(body, contentType));
    }

    private static byte[] checked(byte[] body) {
        byte[] b = body == null ? new byte[0] : body;
        if (b.length > HttpEdge.MAX_BODY_BYTES) {
            throw new ProblemException(HttpEdge.tooLarge());
        }
        return b;
    }

    private static WireFormat format(byte[] body, String contentType) {
        if (contentType != null && WireFormat.ofMediaType(contentType) == WireFormat.YAML) {
            return WireFormat.YAML;
        }
        return body == null ? WireFormat.JSON : WireFormat.sniff(body);
    }
}
