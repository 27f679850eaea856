package io.tollgate.gateway.limiter.settlement;

import io.tollgate.gateway.proxy.AnswerWatcher;

/**
 * What one admitted request owes the store once its answer ends: watches the answer go past and, when the
 * exchange is over, settles what the answer used and gives back the request's slots ({@code Limiter.settlementOf}).
 */
public interface Settlement extends AnswerWatcher {

    /** The request is not forwarded after all (another rule rejected it): its slots go back now. */
    void cancel();
}
