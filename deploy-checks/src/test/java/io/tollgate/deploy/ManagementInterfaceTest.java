package io.tollgate.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPort;

/**
 * Health, metrics and operations of the gateway and the rules service live on their management interface, and
 * every deployment reads them there: the probes and the scrape target it, the Services publish only the public
 * port, and a NetworkPolicy lets only the scraper and operators reach it.
 */
class ManagementInterfaceTest {

    private static final String MANAGEMENT = "management";

    @Test
    void servicesServeTheirManagementInterfaceOnItsPort() {
        Repo.MANAGEMENT.forEach((service, port) -> {
            assertThat(ServiceWiringTest.configured(service, "quarkus.management.enabled")).as(service).isEqualTo("true");
            assertThat(ServiceWiringTest.configured(service, "quarkus.management.port")).as(service)
                    .isEqualTo(String.valueOf(port));
            assertThat(ServiceWiringTest.containerPortName(container(service), port)).as(service).isEqualTo(MANAGEMENT);
        });
    }

    @Test
    void prometheusScrapesTheManagementPort() {
        Repo.MANAGEMENT.forEach((service, port) -> {
            Map<String, String> annotations = ServiceWiringTest.deployment(service).getSpec().getTemplate().getMetadata()
                    .getAnnotations();
            assertThat(annotations).as(service).containsEntry("prometheus.io/scrape", "true")
                    .containsEntry("prometheus.io/port", String.valueOf(port))
                    .containsEntry("prometheus.io/path", "/q/metrics");
        });
    }

    @Test
    void theServicesPublishOnlyThePublicPort() {
        Repo.MANAGEMENT.keySet().forEach(service -> {
            Service published = (Service) KubernetesModel.baseObject("Service", service);
            assertThat(published.getSpec().getPorts()).as(service).allSatisfy(p -> {
                assertThat(p.getTargetPort().getStrVal()).isEqualTo("http");
                assertThat(p.getPort()).isEqualTo(Repo.SERVICES.get(service));
            });
        });
    }

    @Test
    void aNetworkPolicyOpensTheManagementPortToTheScraperAndOperatorsOnly() {
        NetworkPolicy policy = (NetworkPolicy) KubernetesModel.baseObject("NetworkPolicy", "management-ingress");
        LabelSelector pods = policy.getSpec().getPodSelector();
        assertThat(pods.getMatchExpressions()).as("the pods it guards").anySatisfy(e -> {
            assertThat(e.getKey()).isEqualTo("app.kubernetes.io/name");
            assertThat(e.getOperator()).isEqualTo("In");
            assertThat(e.getValues()).containsExactlyInAnyOrderElementsOf(Repo.MANAGEMENT.keySet());
        });
        assertThat(policy.getSpec().getPolicyTypes()).contains("Ingress");
        List<NetworkPolicyIngressRule> rules = policy.getSpec().getIngress();
        NetworkPolicyIngressRule management = rules.stream().filter(r -> portNames(r).contains(MANAGEMENT)).findFirst()
                .orElseThrow(() -> new AssertionError("no ingress rule names the port " + MANAGEMENT));
        assertThat(management.getFrom()).as("who reaches the management port").anySatisfy(peer -> {
            assertThat(peer.getNamespaceSelector()).as("the scraper's namespace").isNotNull();
            assertThat(peer.getPodSelector().getMatchLabels()).containsEntry("app.kubernetes.io/name", "prometheus");
        }).anySatisfy(peer -> assertThat(peer.getPodSelector().getMatchLabels()).containsKey("tollgate.io/operator"));
        for (NetworkPolicyIngressRule rule : rules) {
            boolean coversManagement = portNames(rule).isEmpty() || portNames(rule).contains(MANAGEMENT);
            if (coversManagement) {
                assertThat(rule.getFrom()).as("a rule that opens the management port names its peers").isNotEmpty();
            }
        }
    }

    @Test
    void theGatewaysPublicPortIsOpenToAllAndTheRulesServicesToGatewaysAndOperatorsOnly() {
        NetworkPolicy gateways = (NetworkPolicy) KubernetesModel.baseObject("NetworkPolicy", "gateway-ingress");
        assertThat(gateways.getSpec().getPodSelector().getMatchLabels())
                .containsEntry("app.kubernetes.io/name", "gateway-service");
        assertThat(gateways.getSpec().getIngress()).singleElement().satisfies(rule -> {
            assertThat(rule.getFrom()).as("every client").isNullOrEmpty();
            assertThat(portNames(rule)).containsExactly("http");
        });
        NetworkPolicy api = (NetworkPolicy) KubernetesModel.baseObject("NetworkPolicy", "rules-api-ingress");
        assertThat(api.getSpec().getPodSelector().getMatchLabels()).containsEntry("app.kubernetes.io/name", "rules-service");
        assertThat(api.getSpec().getPolicyTypes()).contains("Ingress");
        assertThat(api.getSpec().getIngress()).singleElement().satisfies(rule -> {
            assertThat(portNames(rule)).containsExactly("http");
            assertThat(rule.getFrom()).as("who reaches the rules service's API").hasSize(2)
                    .anySatisfy(peer -> assertThat(peer.getPodSelector().getMatchLabels())
                            .containsEntry("app.kubernetes.io/name", "gateway-service"))
                    .anySatisfy(peer -> assertThat(peer.getPodSelector().getMatchLabels())
                            .containsEntry("tollgate.io/operator", "true"))
                    .allSatisfy(peer -> assertThat(peer.getNamespaceSelector()).as("this namespace only").isNull());
        });
        // policies add up: none may open the rules service's port to every peer
        for (var file : Repo.yamlFiles("k8s/base")) {
            for (JsonNode doc : Repo.documents(file)) {
                if (!doc.path("kind").asText().equals("NetworkPolicy")) {
                    continue;
                }
                NetworkPolicy policy = (NetworkPolicy) KubernetesModel.read(doc);
                if (!selectsRulesService(policy.getSpec().getPodSelector())) {
                    continue;
                }
                for (NetworkPolicyIngressRule rule : policy.getSpec().getIngress()) {
                    if (portNames(rule).isEmpty() || portNames(rule).contains("http")) {
                        assertThat(rule.getFrom()).as(file.getFileName() + ": a rule that opens the rules service's API "
                                + "names its peers").isNotEmpty();
                    }
                }
            }
        }
    }

    @Test
    void composeChecksTheManagementPortInsideTheNetworkAndPublishesItNowhere() {
        JsonNode services = Repo.document("docker/compose.yaml").path("services");
        for (String name : List.of("rules-service", "gateway-1", "gateway-2", "gateway-3")) {
            int port = Repo.MANAGEMENT.get(name.startsWith("gateway-") ? "gateway-service" : name);
            JsonNode service = services.path(name);
            List<String> published = new ArrayList<>();
            service.path("ports").forEach(p -> published.add(p.asText()));
            assertThat(published).as(name + " publishes no management port")
                    .noneSatisfy(p -> assertThat(p).endsWith(":" + port));
            assertThat(service.path("healthcheck").path("test").toString()).as(name + " healthcheck")
                    .contains("http://127.0.0.1:" + port + "/q/health/ready");
        }
    }

    private static boolean selectsRulesService(LabelSelector pods) {
        if (pods.getMatchLabels() != null && "rules-service".equals(pods.getMatchLabels().get("app.kubernetes.io/name"))) {
            return true;
        }
        return pods.getMatchExpressions() != null && pods.getMatchExpressions().stream()
                .anyMatch(e -> e.getKey().equals("app.kubernetes.io/name") && e.getValues().contains("rules-service"));
    }

    private static List<String> portNames(NetworkPolicyIngressRule rule) {
        List<String> names = new ArrayList<>();
        if (rule.getPorts() != null) {
            for (NetworkPolicyPort port : rule.getPorts()) {
                IntOrString value = port.getPort();
                names.add(value.getStrVal() != null ? value.getStrVal() : String.valueOf(value.getIntVal()));
            }
        }
        return names;
    }

    private static Container container(String service) {
        return ServiceWiringTest.deployment(service).getSpec().getTemplate().getSpec().getContainers().get(0);
    }
}
