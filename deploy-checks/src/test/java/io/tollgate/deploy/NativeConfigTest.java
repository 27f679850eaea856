package io.tollgate.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarFile;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * What src-native/ names must exist on the class path of the service it is for (its packaged app), so the
 * registrations cannot rot when a class is renamed or a library changes; and every constraint validator
 * of rules-domain must be registered, since Hibernate Validator creates them by reflection.
 */
class NativeConfigTest {

    private static final Pattern CHECK_CLASS = Pattern.compile("io/tollgate/rules/domain/\\w+\\$Check\\.class");

    static Stream<String> services() {
        return Stream.of("gateway-service", "rules-service");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("services")
    void everyClassNamedForReflectionIsOnTheServicesClassPath(String service) throws Exception {
        try (URLClassLoader loader = classPathOf(service)) {
            for (JsonNode entry : Repo.json("src-native/" + service + "/reflect-config.json")) {
                String name = entry.get("name").asText();
                assertThat(exists(loader, name)).as("src-native/%s/reflect-config.json names %s", service, name)
                        .isTrue();
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("services")
    void everyResourceAndBundleNamedExists(String service) throws Exception {
        JsonNode config = Repo.json("src-native/" + service + "/resource-config.json");
        List<String> entries = resourcesOf(service);
        for (JsonNode include : config.path("resources").path("includes")) {
            Pattern pattern = Pattern.compile(include.get("pattern").asText());
            assertThat(entries).as("a resource matching %s", pattern).anyMatch(e -> pattern.matcher(e).matches());
        }
        for (JsonNode bundle : config.path("bundles")) {
            String file = bundle.get("name").asText().replace('.', '/') + ".properties";
            assertThat(entries).as("bundle %s", file).contains(file);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("services")
    void everyConstraintValidatorOfTheRuleIsRegistered(String service) {
        List<String> registered = new ArrayList<>();
        Repo.json("src-native/" + service + "/reflect-config.json").forEach(e -> registered.add(e.get("name").asText()));
        List<String> validators = resourcesOf(service).stream()
                .filter(e -> CHECK_CLASS.matcher(e).matches())
                .map(e -> e.substring(0, e.length() - ".class".length()).replace('/', '.'))
                .toList();
        assertThat(validators).as("rules-domain's constraint validators").isNotEmpty();
        assertThat(registered).containsAll(validators);
    }

    private static boolean exists(ClassLoader loader, String name) {
        try {
            Class.forName(name, false, loader);
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /** The jars of the service's packaged app (the fast-jar every build makes). */
    private static List<Path> jarsOf(String service) {
        Path app = Repo.path(service + "/target/quarkus-app");
        assertThat(app.resolve("quarkus-run.jar")).as("%s is packaged", service).exists();
        try (Stream<Path> files = Files.walk(app)) {
            return files.filter(f -> f.toString().endsWith(".jar")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static URLClassLoader classPathOf(String service) {
        List<URL> urls = new ArrayList<>();
        for (Path jar : jarsOf(service)) {
            try {
                urls.add(jar.toUri().toURL());
            } catch (MalformedURLException e) {
                throw new IllegalStateException(e);
            }
        }
        return new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader());
    }

    private static List<String> resourcesOf(String service) {
        List<String> entries = new ArrayList<>();
        for (Path jar : jarsOf(service)) {
            try (JarFile file = new JarFile(jar.toFile())) {
                file.stream().forEach(e -> entries.add(e.getName()));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return entries;
    }
}
