package dev.fairway.balancer;

import java.util.List;

/**
 * One proxy verticle's observations of one period, sent to the balancer in one event-bus message.
 *
 * <p>Example: a verticle that served b1 and b2 in the last 250 ms sends one batch of two
 * {@link Observation}s; one that served nothing sends nothing.
 *
 * @param observations one per backend seen
 */
public record ObservationBatch(List<Observation> observations) {
  public ObservationBatch {
    observations = List.copyOf(observations);
  }
}
