package io.tollgate.rules.domain;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/** Reads test fixtures from the class path. */
final class Fixtures {

    private Fixtures() {
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
