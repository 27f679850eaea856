/**
 * What a request asks of its rules: {@link io.tollgate.gateway.limiter.targets.Targets} works out each rule's client
 * key (a secret only as its digest), the client of the directory, the policy the rule applies to it and its bucket
 * (a calendar rule's from {@link io.tollgate.gateway.limiter.targets.CalendarWindows}), and groups the buckets by hash
 * tag.
 */
package io.tollgate.gateway.limiter.targets;
