package io.tollgate.rules.domain;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/** Reads test fixtures from the class path. */
final class Fixtures {

    private Fixtures() {
    }

    /**
     * Each invalid fixture's name and the one field it must be rejected for, from
     * {@code invalid-fields.properties} (shared with the rules service's API tests through the test jar).
     */
    static Map<String, String> expectedFields() {
        Properties p = new Properties();
        try (InputStream in = Fixtures.class.getResourceAsStream("/invalid-fields.properties")) {
            p.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, String> out = new TreeMap<>();
        p.forEach((k, v) -> out.put((String) k, (String) v));
        return out;
    }

    static byte[] bytes(String name) {
        try (InputStream in = Fixtures.class.getResourceAsStream("/" + name)) {
            if (in == null) {
                throw new IllegalArgumentException("no fixture " + name);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
