package io.tollgate.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class DockerfilesTest {

    private static final Pattern COPY_FROM_BUILD = Pattern.compile("COPY --from=\\w+ .*?/src/(\\S+)\\s+\\S+$",
            Pattern.MULTILINE);

    static Stream<String> jvmImages() {
        return Repo.SERVICES.keySet().stream().sorted();
    }

    static Stream<String> nativeImages() {
        return Stream.of("gateway-service", "rules-service");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jvmImages")
    void jvmImageCopiesWhatTheBuildProduces(String service) {
        String dockerfile = Repo.read("docker/" + service + "/Dockerfile.jvm");
        List<String> copied = copiedPaths(dockerfile);
        assertThat(copied).isNotEmpty();
        for (String path : copied) {
            // The JVM build is the one this build ran: the copied folders must exist in its output.
            String local = path.replace("*.jar", "quarkus-run.jar");
            assertThat(Repo.path(local)).as("docker/%s/Dockerfile.jvm copies %s", service, path).exists();
        }
        assertThat(dockerfile).contains("-pl " + service + " ");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("nativeImages")
    void nativeImageCompilesTheSourcesQuarkusGenerates(String service) {
        String dockerfile = Repo.read("docker/" + service + "/Dockerfile.native");
        // No native-image here, so the paths are checked against Quarkus's conventions, not a real build.
        assertThat(dockerfile).contains("-Pnative -Dquarkus.native.sources-only=true -pl " + service)
                .contains("/src/" + service + "/target/native-sources")
                .contains("native-image $(cat native-image.args)");
        assertThat(Files.isDirectory(Repo.path(service + "/target"))).isTrue();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jvmImages")
    void imagesRunAsNonRootAndExposeTheServicePort(String service) {
        for (String flavour : List.of("jvm", "native")) {
            if (flavour.equals("native") && service.equals("demo-backend")) {
                continue;
            }
            String dockerfile = Repo.read("docker/" + service + "/Dockerfile." + flavour);
            int port = Repo.SERVICES.get(service);
            assertThat(dockerfile).as(service + " " + flavour)
                    .containsPattern("(?m)^USER (185|1001)$")
                    .contains("EXPOSE " + port)
                    .contains("http://127.0.0.1:" + port + "/q/health/live")
                    .contains("-t tollgate/" + service + ":0.1.0-" + flavour);
        }
    }

    static List<String> copiedPaths(String dockerfile) {
        List<String> paths = new ArrayList<>();
        Matcher m = COPY_FROM_BUILD.matcher(dockerfile);
        while (m.find()) {
            if (!m.group(0).contains("--from=native")) {
                paths.add(m.group(1));
            }
        }
        return paths;
    }
}
