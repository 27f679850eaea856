package io.tollgate.rules.domain;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;

/**
 * THE parser and writer of rules, used by the rules service for what it accepts and by gateways for what
 * they load. Reads JSON or YAML, rejects unknown and duplicate fields, and reports EVERY bad field in one
 * {@link RuleValidationException}. Thread-safe; build one and share it.
 */
public final class RuleCodec {

    private final ObjectMapper json = JsonMapper.builder()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .build();
    private final ObjectMapper yaml = YAMLMapper.builder()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .build();

    /** One rule, JSON or YAML (sniffed). */
    public Rule parseRule(String text) {
        return parseRule(text.getBytes(StandardCharsets.UTF_8));
    }

    /** One rule, JSON or YAML (sniffed). */
    public Rule parseRule(byte[] body) {
        return parseRule(body, WireFormat.sniff(body));
    }

    /** One rule in the given format. */
    public Rule parseRule(byte[] body, WireFormat format) {
        return RuleReader.read(tree(body, format));
    }

    /** A list of rules: a JSON/YAML array, or an object with {@code rules} (and an optional version). */
    public List<Rule> parseRules(byte[] body, WireFormat format) {
        JsonNode root = tree(body, format);
        return root.isArray() ? RuleSetReader.readList(root) : RuleSetReader.readSet(root).rules();
    }

    /** A rule set: {@code {"version": N, "rules": [...]}}; the version may be left out (it is then 0). */
    public RuleSet parseRuleSet(String text) {
        byte[] body = text.getBytes(StandardCharsets.UTF_8);
        return parseRuleSet(body, WireFormat.sniff(body));
    }

    /** A rule set in the given format; see {@link #parseRuleSet(String)}. */
    public RuleSet parseRuleSet(byte[] body, WireFormat format) {
        return RuleSetReader.readSet(tree(body, format));
    }

    /** The stable JSON form of a rule (fields in the documented order, period in its largest whole unit). */
    public String write(Rule rule) {
        return writeJson(rule);
    }

    /** The stable JSON form of a rule set. */
    public String write(RuleSet set) {
        return writeJson(set);
    }

    /** The stable YAML form of a rule set (for files people edit). */
    public String writeYaml(RuleSet set) {
        try {
            return yaml.writeValueAsString(set);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a rule set always serialises", e);
        }
    }

    private String writeJson(Object value) {
        try {
            return json.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a rule always serialises", e);
        }
    }

    private JsonNode tree(byte[] body, WireFormat format) {
        ObjectMapper mapper = format == WireFormat.YAML ? yaml : json;
        try {
            JsonNode node = mapper.readTree(body);
            if (node == null || node.isMissingNode()) {
                throw invalid("", null, "the body is empty");
            }
            return node;
        } catch (JsonProcessingException e) {
            throw invalid("", null, "not valid " + format + ": " + e.getOriginalMessage());
        } catch (IOException e) {
            throw invalid("", null, "unreadable: " + e.getMessage());
        }
    }

    private static RuleValidationException invalid(String field, String value, String reason) {
        return new RuleValidationException(List.of(new FieldError(field, value, reason)));
    }
}
