package io.tollgate.rules.domain;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;

/**
 * THE parser and writer of client-directory entries, used by the rules service for what it accepts and by
 * gateways for what they load: strict as {@link RuleCodec} (unknown and duplicate fields refused, every bad field
 * reported in one {@link RuleValidationException}). Whether an entry fits the rules (a plan some rule names, an
 * override of a rule that exists) depends on the rule set: {@link DirectoryValidator}. An error never quotes the
 * text it could not read, nor the value of a field {@value #KEY}: a directory body may carry an API key, which must
 * not come back in an answer or a log. Thread-safe.
 */
public final class DirectoryCodec {

    /** The field of a bulk-import line that carries the API key. */
    public static final String KEY = "key";
    private static final Set<String> CLIENT_FIELDS = Set.of("tenant", "plan", "label", "overrides");
    private static final Set<String> TENANT_FIELDS = Set.of("plan", "label", "overrides");

    private final ObjectMapper json = JsonMapper.builder()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    /** One client entry (JSON). */
    public ClientEntry parseClient(byte[] body) {
        return client(tree(body));
    }

    /** One tenant entry (JSON). */
    public TenantEntry parseTenant(byte[] body) {
        return tenant(tree(body));
    }

    /** One JSON object, or a {@link RuleValidationException} saying why the text is not one. */
    public JsonNode tree(byte[] body) {
        try {
            JsonNode node = json.readTree(body);
            if (node == null || node.isMissingNode()) {
                throw invalid("", null, "the body is empty");
            }
            return node;
        } catch (JsonProcessingException e) {
            // the parser's own message may quote the text: only where it broke
            JsonLocation at = e.getLocation();
            throw invalid("", null, at == null
                    ? "not valid JSON"
                    : "not valid JSON (line " + at.getLineNr() + ", column " + at.getColumnNr() + ")");
        } catch (IOException e) {
            throw invalid("", null, "unreadable");
        }
    }

    /**
     * The client entry in {@code node}; {@code extraFields} are fields the caller reads itself (the {@code key}
     * of a bulk-import line) and are not refused as unknown.
     */
    public ClientEntry client(JsonNode node, String... extraFields) {
        JsonFields in = new JsonFields();
        if (!object(node, in, "a client entry")) {
            throwIfAny(in);
        }
        in.rejectUnknown(node, known(CLIENT_FIELDS, extraFields), "");
        String tenant = in.text(node, "tenant", "tenant");
        String plan = in.text(node, "plan", "plan");
        String label = in.text(node, "label", "label");
        Map<String, Limits> overrides = LimitsReader.readMap(node.get("overrides"), "overrides", in);
        ClientEntry entry = new ClientEntry(tenant, plan, label, overrides);
        in.addUnreported(DirectoryValidator.validate(entry));
        throwIfAny(in);
        return entry;
    }

    /** The tenant entry in {@code node}. */
    public TenantEntry tenant(JsonNode node, String... extraFields) {
        JsonFields in = new JsonFields();
        if (!object(node, in, "a tenant entry")) {
            throwIfAny(in);
        }
        in.rejectUnknown(node, known(TENANT_FIELDS, extraFields), "");
        String plan = in.text(node, "plan", "plan");
        String label = in.text(node, "label", "label");
        Map<String, Limits> overrides = LimitsReader.readMap(node.get("overrides"), "overrides", in);
        TenantEntry entry = new TenantEntry(plan, label, overrides);
        in.addUnreported(DirectoryValidator.validate(entry));
        throwIfAny(in);
        return entry;
    }

    /** A page of directory changes, every entry in it read as strictly as one sent alone. */
    public DirectoryChanges parseChanges(byte[] body) {
        JsonNode root = tree(body);
        JsonFields in = new JsonFields();
        if (!object(root, in, "a page of directory changes")) {
            in.throwIfAny();
        }
        in.rejectUnknown(root, Set.of("seq", "more", "tenants", "clients"), "");
        Long seq = in.whole(root, "seq");
        Boolean more = in.bool(root, "more");
        List<DirectoryChanges.TenantChange> tenants = new ArrayList<>();
        for (JsonNode change : array(root, "tenants", in)) {
            String id = change.path("id").asText(null);
            JsonNode entry = change.get("entry");
            tenants.add(new DirectoryChanges.TenantChange(id, entry == null || entry.isNull() ? null : tenant(entry)));
        }
        List<DirectoryChanges.ClientChange> clients = new ArrayList<>();
        for (JsonNode change : array(root, "clients", in)) {
            String digest = change.path("digest").asText(null);
            if (!ClientDigest.isDigest(digest)) {
                in.reject("clients.digest", Values.show(change.get("digest")), "must be 64 lowercase hex digits");
                continue;
            }
            JsonNode entry = change.get("entry");
            clients.add(new DirectoryChanges.ClientChange(digest, entry == null || entry.isNull() ? null : client(entry)));
        }
        in.throwIfAny();
        return new DirectoryChanges(seq == null ? 0 : seq, more != null && more, tenants, clients);
    }

    /**
     * One change of a page, its entry as JSON text this codec wrote and a store kept ({@code null}: deleted): a
     * page of them is written without reading the entries again.
     *
     * @param name the tenant's id or the client's digest
     */
    public record StoredChange(String name, String entryJson) {
    }

    /**
     * The JSON of the page {@link #parseChanges} reads, from entries kept as the JSON text this codec wrote:
     * they go out as they are, so serving a page costs no parse and no validation of entries that were valid
     * when written.
     */
    public String writeChanges(long seq, boolean more, List<StoredChange> tenants, List<StoredChange> clients) {
        java.io.StringWriter out = new java.io.StringWriter(64 + 160 * (tenants.size() + clients.size()));
        try (com.fasterxml.jackson.core.JsonGenerator g = json.getFactory().createGenerator(out)) {
            g.writeStartObject();
            g.writeNumberField("seq", seq);
            g.writeBooleanField("more", more);
            writeStored(g, "tenants", "id", tenants);
            writeStored(g, "clients", "digest", clients);
            g.writeEndObject();
        } catch (IOException e) {
            throw new IllegalStateException("a page of stored entries always serialises", e);
        }
        return out.toString();
    }

    private static void writeStored(com.fasterxml.jackson.core.JsonGenerator g, String field, String nameField,
            List<StoredChange> changes) throws IOException {
        g.writeArrayFieldStart(field);
        for (StoredChange change : changes) {
            g.writeStartObject();
            g.writeStringField(nameField, change.name());
            g.writeBooleanField("deleted", change.entryJson() == null);
            if (change.entryJson() != null) {
                g.writeFieldName("entry");
                g.writeRawValue(change.entryJson());
            }
            g.writeEndObject();
        }
        g.writeEndArray();
    }

    /** The JSON form of an entry or a page of changes. */
    public String write(Object value) {
        try {
            return json.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a directory value always serialises", e);
        }
    }

    /** Throws with every error noted, the value of a field {@value #KEY} left out. */
    private static void throwIfAny(JsonFields in) {
        try {
            in.throwIfAny();
        } catch (RuleValidationException e) {
            throw new RuleValidationException(e.errors().stream()
                    .map(error -> error.field().equals(KEY) ? new FieldError(KEY, null, error.reason()) : error)
                    .toList());
        }
    }

    private static List<JsonNode> array(JsonNode root, String field, JsonFields in) {
        JsonNode node = root.get(field);
        List<JsonNode> out = new ArrayList<>();
        if (node == null || node.isNull()) {
            return out;
        }
        if (!node.isArray()) {
            in.reject(field, Values.show(node), "must be a list");
            return out;
        }
        node.forEach(out::add);
        return out;
    }

    private static boolean object(JsonNode node, JsonFields in, String what) {
        if (node == null || !node.isObject()) {
            in.reject("", null, "must be an object (" + what + ")");
            return false;
        }
        return true;
    }

    private static Set<String> known(Set<String> fields, String... extra) {
        if (extra.length == 0) {
            return fields;
        }
        Set<String> all = new HashSet<>(fields);
        all.addAll(List.of(extra));
        return all;
    }

    private static RuleValidationException invalid(String field, String value, String reason) {
        return new RuleValidationException(List.of(new FieldError(field, value, reason)));
    }
}
