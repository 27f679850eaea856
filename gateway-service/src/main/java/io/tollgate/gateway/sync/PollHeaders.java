package io.tollgate.gateway.sync;

import java.lang.management.ManagementFactory;
import java.net.URI;
import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;

import org.eclipse.microprofile.config.ConfigProvider;

import io.quarkus.runtime.LaunchMode;
import io.quarkus.vertx.http.HttpServer;
import io.tollgate.gateway.config.AdminConfig;
import io.tollgate.gateway.config.GatewayConfig;
import io.tollgate.gateway.config.Loopback;
import io.vertx.core.http.RequestOptions;

/**
 * What every call to the rules service says about the gateway making it: its id ({@value #GATEWAY}), where its
 * management interface is ({@value #GATEWAY_ADMIN}), and its token ({@code Authorization: Bearer}):
 * {@code tollgate.rules.token}, else {@code tollgate.admin.token}. Without a gateway or admin token the rules
 * service answers nothing and neither counts the gateway nor takes its address. The rules service calls the
 * address with the same token for its live view.
 */
@ApplicationScoped
class PollHeaders {

    static final String GATEWAY = "Tollgate-Gateway";
    static final String GATEWAY_ADMIN = "Tollgate-Gateway-Admin";
    private static final String AUTHORIZATION = "Authorization";

    private final boolean register;
    private final String instanceId;
    private final Optional<String> configuredAdminUrl;
    private final Optional<String> authorization;
    private final Instance<HttpServer> server;
    private final String managementHost;
    private final int configuredManagementPort;

    PollHeaders(GatewayConfig config, AdminConfig admin, Instance<HttpServer> server) {
        this.register = config.rules().register();
        this.instanceId = config.gateway().instanceId()
                .orElseGet(() -> ManagementFactory.getRuntimeMXBean().getName());
        this.configuredAdminUrl = config.gateway().adminUrl().map(PollHeaders::withoutTrailingSlash);
        this.authorization = config.rules().token().filter(t -> !t.isBlank())
                .or(() -> admin.token().filter(t -> !t.isBlank()))
                .map(t -> "Bearer " + t);
        this.server = server;
        this.managementHost = Loopback.hostFor(ConfigProvider.getConfig()
                .getOptionalValue("quarkus.management.host", String.class).orElse("0.0.0.0"));
        String portKey = LaunchMode.current() == LaunchMode.TEST ? "quarkus.management.test-port" : "quarkus.management.port";
        this.configuredManagementPort = ConfigProvider.getConfig().getOptionalValue(portKey, Integer.class).orElse(0);
    }

    /**
     * The management interface's base URL: {@code tollgate.gateway.admin-url}, else the port it listens on: the
     * configured one, or for port 0 (tests) the one chosen, known only once it listens; null while unknown.
     */
    String adminUrl() {
        if (configuredAdminUrl.isPresent()) {
            return configuredAdminUrl.get();
        }
        // Quarkus registers the port it listens on only when it chose it (port 0); otherwise it is the configured one
        int port = server.isResolvable() ? server.get().getManagementPort() : -1;
        if (port <= 0) {
            port = configuredManagementPort;
        }
        if (port <= 0) {
            return null;
        }
        String host = managementHost.contains(":") ? "[" + managementHost + "]" : managementHost;
        return "http://" + host + ":" + port;
    }

    void addTo(RequestOptions options) {
        // a gateway that does not register reads the rules without counting in the fleet (tollgate.rules.register)
        if (register) {
            options.putHeader(GATEWAY, instanceId);
            String adminUrl = adminUrl();
            if (adminUrl != null) {
                options.putHeader(GATEWAY_ADMIN, adminUrl);
            }
        }
        authorization.ifPresent(value -> options.putHeader(AUTHORIZATION, value));
    }

    private static String withoutTrailingSlash(URI url) {
        String text = url.toString();
        return text.endsWith("/") ? text.substring(0, text.length() - 1) : text;
    }
}
