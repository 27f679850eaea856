package io.tollgate.rules.domain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;

import io.tollgate.rules.domain.DocBlocks.Block;

/**
 * Every rule and rule set the user documentation shows (a {@code json} or {@code yaml} block of {@code docs/})
 * reads and validates with THE codec, the one the rules service and the gateways use. A block is a rule when it
 * is an object with an {@code id} and one of {@code key}, {@code limit}, {@code period}, {@code match},
 * {@code algorithm}; a rule set when its only fields are {@code rules} (a list) and {@code version}. Every
 * {@code json} and {@code yaml} block must at least parse.
 */
class DocumentedRulesTest {

    private static final Set<String> RULE_HINTS = Set.of("key", "limit", "period", "match", "algorithm");
    private static final Set<String> SET_FIELDS = Set.of("rules", "version");

    private static final ObjectMapper JSON = JsonMapper.builder().build();
    private static final ObjectMapper YAML = YAMLMapper.builder().build();

    private final RuleCodec codec = new RuleCodec();

    @TestFactory
    Stream<DynamicTest> everyDocumentedRuleIsValid() {
        return examples().map(block -> DynamicTest.dynamicTest(block.where(), () -> check(block)));
    }

    @Test
    void theDocumentationShowsRulesAndRuleSets() {
        List<Block> examples = examples().toList();
        long rules = examples.stream().filter(b -> kind(b) == Kind.RULE).count();
        long sets = examples.stream().filter(b -> kind(b) == Kind.SET).count();
        // a floor, so that a change of the classification above cannot silently check nothing
        assertThat(rules).as("rule examples in docs/").isGreaterThanOrEqualTo(5);
        assertThat(sets).as("rule-set examples in docs/").isGreaterThanOrEqualTo(3);
    }

    private void check(Block block) {
        byte[] body = block.text().getBytes(StandardCharsets.UTF_8);
        WireFormat format = format(block);
        switch (kind(block)) {
            case RULE -> assertThatCode(() -> codec.parseRule(body, format)).as(block.where()).doesNotThrowAnyException();
            case SET -> assertThatCode(() -> codec.parseRuleSet(body, format)).as(block.where())
                    .doesNotThrowAnyException();
            case OTHER -> {
                // an answer or another document: it only has to parse, which kind() did
            }
        }
    }

    private static Stream<Block> examples() {
        return DocBlocks.pages().stream().flatMap(page -> DocBlocks.of(page).stream())
                .filter(b -> !b.notRun() && (b.language().equals("json") || b.language().equals("yaml")));
    }

    private enum Kind {
        RULE, SET, OTHER
    }

    private static Kind kind(Block block) {
        JsonNode tree;
        try {
            tree = (format(block) == WireFormat.YAML ? YAML : JSON).readTree(block.text());
        } catch (JsonProcessingException e) {
            throw new AssertionError(block.where() + ": a " + block.language() + " block that does not parse: "
                    + e.getOriginalMessage(), e);
        }
        if (tree == null || !tree.isObject()) {
            return Kind.OTHER;
        }
        List<String> fields = fieldNames(tree);
        if (tree.path("rules").isArray() && SET_FIELDS.containsAll(fields)) {
            return Kind.SET;
        }
        if (tree.has("id") && fields.stream().anyMatch(RULE_HINTS::contains)) {
            return Kind.RULE;
        }
        return Kind.OTHER;
    }

    private static List<String> fieldNames(JsonNode tree) {
        List<String> names = new ArrayList<>();
        tree.fieldNames().forEachRemaining(names::add);
        return names;
    }

    private static WireFormat format(Block block) {
        return block.language().equals("yaml") ? WireFormat.YAML : WireFormat.JSON;
    }
}
