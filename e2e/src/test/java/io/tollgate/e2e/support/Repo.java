package io.tollgate.e2e.support;

import java.nio.file.Files;
import java.nio.file.Path;

/** Where the repository and the JVM running the tests are. */
final class Repo {

    private static final Path ROOT = findRoot();

    private Repo() {
    }

    static Path path(String relative) {
        return ROOT.resolve(relative);
    }

    /** The java launcher of the JVM that runs the tests, so the services run on the same JDK. */
    static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private static Path findRoot() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.isRegularFile(dir.resolve("tollgate"))) {
            dir = dir.getParent();
        }
        if (dir == null) {
            throw new IllegalStateException("no repository root (a folder holding ./tollgate) above the working directory");
        }
        return dir;
    }
}
