package dev.idem.runtime.internal;

import java.util.List;

/**
 * The real work of a batch command: generated code passes a lambda that calls the delegate with the messages of
 * the batch that were seen for the first time.
 *
 * @param <E> the message type
 */
@FunctionalInterface
public interface BatchBody<E> {

  /**
   * Processes the first-seen messages.
   *
   * @param firstSeen the messages not processed before, in their original order, each key once; never empty
   * @return the number of messages processed
   * @throws Exception anything; idem rethrows it unchanged after rolling back the whole batch
   */
  int run(List<E> firstSeen) throws Exception;
}
