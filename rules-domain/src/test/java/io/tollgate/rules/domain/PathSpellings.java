package io.tollgate.rules.domain;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Respellings of a path that a careless router or guard might read as another path, or as the same one when the
 * guard does not: for the tests that prove every endpoint's access holds however its path is spelled.
 */
public final class PathSpellings {

    private PathSpellings() {
    }

    /**
     * {@code path} (absolute, without a query) respelled: a {@code ;x} parameter on each segment, a doubled slash
     * (leading and inside), a dot segment, a segment climbed out of, a letter percent-encoded (in the first and the
     * last segment), the first segment in upper case, a trailing slash.
     */
    public static List<String> of(String path) {
        String[] segments = path.substring(1).split("/", -1);
        List<String> out = new ArrayList<>();
        for (int i = 0; i < segments.length; i++) {
            String[] with = segments.clone();
            with[i] = with[i] + ";x";
            out.add("/" + String.join("/", with));
        }
        String first = segments[0];
        String rest = path.substring(first.length() + 1);
        String last = segments[segments.length - 1];
        out.addAll(List.of("/" + path, "/" + first + "/" + rest, "/" + first + "/." + rest,
                "/" + first + "/x/.." + rest, "/" + escaped(first) + rest,
                path.substring(0, path.length() - last.length()) + escaped(last),
                "/" + first.toUpperCase(Locale.ROOT) + rest, path + "/"));
        return out;
    }

    private static String escaped(String segment) {
        return segment.isEmpty() ? segment : String.format("%%%02x", (int) segment.charAt(0)) + segment.substring(1);
    }
}
