package io.tollgate.rules.config;

import java.time.Clock;

import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import io.tollgate.rules.domain.RuleCodec;

/** The shared rules-domain parser and the clock, as beans. */
class DomainBeans {

    @Produces
    @Singleton
    RuleCodec ruleCodec() {
        return new RuleCodec();
    }

    @Produces
    @Singleton
    Clock clock() {
        return Clock.systemUTC();
    }
}
