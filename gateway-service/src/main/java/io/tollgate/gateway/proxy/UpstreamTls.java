package io.tollgate.gateway.proxy;

import java.util.Optional;

import jakarta.inject.Singleton;

import io.quarkus.tls.TlsConfiguration;
import io.quarkus.tls.TlsConfigurationRegistry;
import io.quarkus.tls.runtime.config.TlsConfigUtils;
import io.tollgate.gateway.config.ConfigError;
import io.tollgate.gateway.config.GatewayConfig;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.WebSocketClientOptions;

/**
 * What the gateway trusts toward its {@code https://}, {@code h2://} and {@code wss} upstreams: the Quarkus TLS
 * configuration named by {@value #KEY} ({@code quarkus.tls.<name>.trust-store.*}, and its key store for an upstream
 * that asks for a client certificate), applied as Quarkus's own clients apply it; the JVM's trust store when unset.
 * A name that no configuration has stops the gateway at start (a singleton: made when the proxy is).
 */
@Singleton
public class UpstreamTls {

    static final String KEY = "tollgate.gateway.upstream-tls-configuration-name";

    private final TlsConfiguration tls;

    UpstreamTls(GatewayConfig config, TlsConfigurationRegistry registry) {
        this.tls = resolve(config.gateway().upstreamTlsConfigurationName(), registry);
    }

    static TlsConfiguration resolve(Optional<String> name, TlsConfigurationRegistry registry) {
        if (name.isEmpty()) {
            return null;
        }
        return registry.get(name.get()).orElseThrow(() -> ConfigError.of(KEY, name.get(),
                "names no TLS configuration: set quarkus.tls." + name.get() + ".trust-store.* (the upstreams' CA)"));
    }

    /** {@code options} with the named configuration's trust and keys, for requests that ask for TLS. */
    HttpClientOptions apply(HttpClientOptions options) {
        if (tls != null) {
            boolean alpn = options.isUseAlpn();
            boolean ssl = options.isSsl();
            TlsConfigUtils.configure(options, tls);
            // TLS stays a choice of each request (an http:// upstream shares the client), and ALPN the protocol's
            options.setSsl(ssl).setUseAlpn(alpn);
        }
        return options;
    }

    WebSocketClientOptions apply(WebSocketClientOptions options) {
        if (tls != null) {
            boolean ssl = options.isSsl();
            TlsConfigUtils.configure(options, tls);
            options.setSsl(ssl);
        }
        return options;
    }
}
