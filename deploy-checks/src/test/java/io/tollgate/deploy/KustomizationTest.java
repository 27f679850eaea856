package io.tollgate.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import com.fasterxml.jackson.databind.JsonNode;

class KustomizationTest {

    static Stream<Path> folders() {
        return Kustomizations.allFolders().stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("folders")
    void everyResourceAndPatchExists(Path folder) {
        assertThat(Kustomizations.resources(folder)).isNotEmpty().allSatisfy(resource -> assertThat(
                Files.isRegularFile(resource) || Files.isRegularFile(resource.resolve("kustomization.yaml")))
                .as(resource + " exists").isTrue());
        assertThat(Kustomizations.patches(folder)).allSatisfy(patch -> assertThat(patch).isRegularFile());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("folders")
    void everyPatchIsOneObjectThatTheBuildHolds(Path folder) {
        Set<Kustomizations.Id> built = Kustomizations.objects(folder);
        for (Path patch : Kustomizations.patches(folder)) {
            List<JsonNode> docs = Repo.documents(patch);
            assertThat(docs).as(patch + " holds one patch").hasSize(1);
            assertThat(built).as(patch + " patches an object of the build").contains(Kustomizations.Id.of(docs.get(0)));
        }
    }

    @Test
    void theBaseListsEveryFileInItsFolder() throws Exception {
        Path base = Repo.path("k8s/base");
        try (Stream<Path> files = Files.list(base)) {
            List<Path> manifests = files.filter(f -> f.toString().endsWith(".yaml"))
                    .filter(f -> !f.getFileName().toString().equals("kustomization.yaml")).toList();
            assertThat(Kustomizations.resources(base)).containsExactlyInAnyOrderElementsOf(manifests);
        }
    }

    @Test
    void overlaysNameTheirNamespaceAndBuildOnTheBase() {
        for (String overlay : List.of("dev", "prod")) {
            Path folder = Repo.path("k8s/overlays/" + overlay);
            JsonNode kustomization = Kustomizations.kustomization(folder);
            String namespace = kustomization.path("namespace").asText();
            assertThat(namespace).as(overlay + " namespace").isNotBlank();
            assertThat(Kustomizations.resources(folder)).contains(Repo.path("k8s/base"));
            assertThat(Kustomizations.objects(folder)).contains(new Kustomizations.Id("Namespace", namespace));
        }
    }
}
