package io.tollgate.rules.config;

import java.time.Clock;

import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import io.tollgate.rules.domain.DirectoryCodec;
import io.tollgate.rules.domain.RuleCodec;

/** The shared rules-domain parsers (rules, directory entries) and the clock, as beans. */
class DomainBeans {

    @Produces
    @Singleton
    RuleCodec ruleCodec() {
        return new RuleCodec();
    }

    @Produces
    @Singleton
    DirectoryCodec directoryCodec() {
        return new DirectoryCodec();
    }

    @Produces
    @Singleton
    Clock clock() {
        return Clock.systemUTC();
    }
}
