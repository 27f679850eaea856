package io.tollgate.gateway.rules;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/** Ready once a rule set is in force, from the rules service or the snapshot: before that nothing is limited. */
@Readiness
@ApplicationScoped
class RulesReadiness implements HealthCheck {

    private final RuleBook book;

    RulesReadiness(RuleBook book) {
        this.book = book;
    }

    @Override
    public HealthCheckResponse call() {
        return HealthCheckResponse.named("rules")
                .status(book.loaded())
                .withData("version", book.version())
                .build();
    }
}
