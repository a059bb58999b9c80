package dev.idem.processor;

import dev.idem.processor.CommandMethod.KeyPart;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.type.ExecutableType;

/**
 * A validated batch handler: an {@code @IdempotentCommand} whose key reads the message id from each element of a
 * {@code List<E>} or {@code Collection<E>} parameter. The other key parts are per batch (e.g. the consumer group).
 *
 * @param command the method as a command: its key parts are those of one message; the batch parameter's accessor
 *     path is resolved on the element type, and the batch parameter stands for one message in the payload
 * @param batchPart the index in {@code command.keyParts()} of the part read from each message
 */
record BatchMethod(CommandMethod command, int batchPart) implements MethodModel {

  @Override
  public ExecutableElement method() {
    return command.method();
  }

  @Override
  public ExecutableType type() {
    return command.type();
  }

  KeyPart messageKey() {
    return command.keyParts().get(batchPart);
  }

  /** The name of the parameter holding the messages. */
  String batchParameter() {
    return messageKey().parameter();
  }
}
