package dev.fairway.config;

/**
 * One arm of a service's weighted {@code split}.
 *
 * <p>Example: {@code "split": [{"service": "v1", "weight": 95}, {"service": "v2", "weight": 5}]}
 * is two targets; of every 100 requests the splitting service takes, 95 go to {@code v1}.
 *
 * @param service the name of the service that serves this share
 * @param weight  a positive relative weight
 */
public record SplitTarget(String service, int weight) {
}
