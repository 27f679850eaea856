package io.tollgate.e2e.support;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Whether what a command printed has the shape of the answer a page shows after it: the same status, every header
 * the page shows, the same problem type and at least the JSON fields shown; a line of statuses as long, turning
 * from the page's first to its last once. Values the page says vary (times, counts, versions) are not compared.
 */
public final class DocShapes {

    private static final ObjectMapper JSON = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    private static final Pattern STATUS_LINE = Pattern.compile("^HTTP/\\S+ (\\d{3})");
    private static final Pattern STATUSES = Pattern.compile("^(\\d{3} )*\\d{3}$");

    private DocShapes() {
    }

    /** Whether a block a page shows promises a shape (statuses, an answer with its status line, a JSON object). */
    public static boolean promises(String shown) {
        String page = shown.strip();
        JsonNode json = json(page);
        return STATUSES.matcher(page).matches() || STATUS_LINE.matcher(page).find() || json != null && json.isObject();
    }

    /**
     * What differs between what the page shows and what the command printed, by shape; null when they agree.
     * {@code shapeOnly}: a line of statuses need only be as long, start alike and hold no other status.
     */
    public static String mismatch(String shown, String printed, boolean shapeOnly) {
        String page = shown.strip();
        String out = printed.replace("\r", "").strip();
        if (STATUSES.matcher(page).matches()) {
            return statuses(page, out, shapeOnly);
        }
        Matcher status = STATUS_LINE.matcher(page);
        if (status.find()) {
            return answer(page, out, status.group(1));
        }
        JsonNode shownJson = json(page);
        if (shownJson != null && shownJson.isObject()) {
            JsonNode got = json(out);
            return got == null ? "what was printed is not one JSON document" : fields(shownJson, got);
        }
        return null; // a page block of another kind is prose for the eye, not a promise of shape
    }

    private static String statuses(String page, String out, boolean shapeOnly) {
        if (!STATUSES.matcher(out).matches()) {
            return "not a line of statuses";
        }
        List<String> expected = Arrays.asList(page.split(" "));
        List<String> actual = Arrays.asList(out.split(" "));
        if (expected.size() != actual.size()) {
            return expected.size() + " statuses on the page, " + actual.size() + " printed";
        }
        if (!expected.get(0).equals(actual.get(0))) {
            return "the first status differs";
        }
        if (shapeOnly) {
            return expected.containsAll(actual) ? null : "a status the page does not show";
        }
        if (!expected.get(expected.size() - 1).equals(actual.get(actual.size() - 1)) || !turnsOnce(actual)) {
            return "the statuses do not turn once, from " + expected.get(0) + " to "
                    + expected.get(expected.size() - 1);
        }
        return null;
    }

    /** Whether the statuses are a run of the first and then a run of the last. */
    private static boolean turnsOnce(List<String> statuses) {
        int turns = 0;
        for (int i = 1; i < statuses.size(); i++) {
            if (!statuses.get(i).equals(statuses.get(i - 1))) {
                turns++;
            }
        }
        return turns <= 1;
    }

    private static String answer(String page, String out, String expectedStatus) {
        Matcher printed = STATUS_LINE.matcher(out);
        if (!printed.find() || !printed.group(1).equals(expectedStatus)) {
            return "the status is not " + expectedStatus;
        }
        String[] pageParts = page.split("\n\n", 2);
        String[] outParts = out.split("\n\n", 2);
        for (String line : pageParts[0].split("\n")) {
            int colon = line.indexOf(':');
            if (line.startsWith("HTTP/") || colon < 0) {
                continue;
            }
            String name = line.substring(0, colon).toLowerCase(Locale.ROOT);
            boolean present = outParts[0].lines().anyMatch(l -> l.toLowerCase(Locale.ROOT).startsWith(name + ":"));
            if (!present) {
                return "no " + line.substring(0, colon) + " header";
            }
        }
        if (pageParts.length > 1 && pageParts[1].strip().startsWith("{")) {
            if (outParts.length < 2) {
                return "no body";
            }
            JsonNode shown = json(pageParts[1].strip());
            JsonNode got = json(outParts[1].strip());
            if (got == null) {
                return "the body is not JSON";
            }
            return shown == null ? null : fields(shown, got);
        }
        return null;
    }

    /** Whether {@code got} has every top-level field {@code shown} has, and the same problem type. */
    private static String fields(JsonNode shown, JsonNode got) {
        List<String> shownFields = new ArrayList<>();
        shown.fieldNames().forEachRemaining(shownFields::add);
        List<String> gotFields = new ArrayList<>();
        got.fieldNames().forEachRemaining(gotFields::add);
        if (!gotFields.containsAll(shownFields)) {
            return "the body lacks some of " + shownFields;
        }
        if (shown.has("type") && !shown.path("type").equals(got.path("type"))) {
            return "the problem's type is " + got.path("type");
        }
        if (shown.has("status") && !shown.path("status").equals(got.path("status"))) {
            return "the problem's status is " + got.path("status");
        }
        return null;
    }

    /** The one JSON document {@code text} is, or null when it is not (a shape drawn with {@code ...}, say). */
    private static JsonNode json(String text) {
        if (!text.startsWith("{")) {
            return null;
        }
        try {
            return JSON.readTree(text);
        } catch (IOException e) {
            return null;
        }
    }
}
