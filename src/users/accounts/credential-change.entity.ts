import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { User } from '../user.entity.js';

/** An account's last password or email change: a reset asked before it is not answered. */
@Entity({ name: 'credential_changes' })
export class CredentialChange {
  @PrimaryColumn({
    name: 'user_id',
    type: 'bigint',
    primaryKeyConstraintName: 'PK_credential_changes',
  })
  userId: number;

  /** Deleting a user deletes its row. */
  @ManyToOne(() => User, { onDelete: 'CASCADE', nullable: false })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'FK_credential_changes_user' })
  user: User;

  @Column({ name: 'changed_at', type: 'timestamptz', precision: 3 })
  changedAt: Date;
}
