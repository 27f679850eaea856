package io.tollgate.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import com.fasterxml.jackson.databind.JsonNode;

import io.fabric8.kubernetes.api.model.HasMetadata;

class KubernetesObjectsTest {

    record Doc(Path file, JsonNode tree) {

        @Override
        public String toString() {
            return Repo.ROOT.relativize(file) + " " + tree.path("kind").asText() + "/"
                    + tree.path("metadata").path("name").asText();
        }
    }

    /** Complete objects: the base and the overlays' own resources (patches are partial by nature). */
    static Stream<Doc> objects() {
        return Repo.yamlFiles("k8s").stream()
                .filter(file -> !Kustomizations.isPatch(file))
                .flatMap(file -> Repo.documents(file).stream().map(tree -> new Doc(file, tree)))
                .filter(doc -> KubernetesModel.isKubernetesObject(doc.tree()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("objects")
    void deserialisesWithNoUnknownField(Doc doc) {
        HasMetadata object = KubernetesModel.read(doc.tree());
        assertThat(object.getMetadata().getName()).isNotBlank();
        assertThat(KubernetesModel.unknownFields(object)).as("fields fabric8 does not know").isEmpty();
    }

    @Test
    void aMisspelledFieldIsCaught() throws Exception {
        JsonNode deployment = Repo.document("k8s/base/gateway-deployment.yaml").deepCopy();
        ((com.fasterxml.jackson.databind.node.ObjectNode) deployment.path("spec").path("template").path("spec")
                .path("containers").get(0)).put("readinessProbes", "oops");
        assertThat(KubernetesModel.unknownFields(KubernetesModel.read(deployment)))
                .containsExactly("spec.template.spec.containers[0].readinessProbes");
    }

    @Test
    void anUnknownKindIsRefused() {
        JsonNode crd = Repo.YAML.createObjectNode().put("apiVersion", "example.com/v1").put("kind", "Widget");
        assertThatThrownBy(() -> KubernetesModel.read(crd)).hasMessageContaining("example.com/v1/Widget");
    }
}
