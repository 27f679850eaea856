package io.tollgate.gateway.clients;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * Ready once the client directory is in force: read from the snapshot, or loaded from the rules service (every
 * page), or found out of reach with no snapshot to read (there is nothing to wait for). Before that a client of a
 * blocked plan would get the rule's own limit.
 */
@Readiness
@ApplicationScoped
class DirectoryReadiness implements HealthCheck {

    private final Directory directory;

    DirectoryReadiness(Directory directory) {
        this.directory = directory;
    }

    @Override
    public HealthCheckResponse call() {
        return HealthCheckResponse.named("directory")
                .status(directory.loaded())
                .withData("seq", directory.seq())
                .withData("clients", directory.size())
                .build();
    }
}
