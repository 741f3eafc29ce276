import { useEffect, useState } from 'preact/hooks';
import { api, type CustomerMatch, messageOf, ok } from '../api';

/** What `GET /users/customers` takes at least: a username has three characters. */
const MIN_QUERY = 3;
/** Typing pauses this long before a search: one request per word typed, not per key. */
const SEARCH_DELAY_MS = 250;

interface CustomerPickerProps {
  /** The label's, hint's and error's ties, from the Field around it. */
  control: { id: string; 'aria-invalid'?: boolean; 'aria-describedby'?: string };
  chosen: CustomerMatch | undefined;
  onChoose: (customer: CustomerMatch | undefined) => void;
}

/**
 * Staff find the customer an adoption is for as they type its username or address: a
 * combobox (WAI-ARIA's list autocomplete) over `GET /users/customers`. Typing again undoes
 * the choice, so what is sent is always a customer picked from an answer.
 */
export function CustomerPicker({ control, chosen, onChoose }: CustomerPickerProps) {
  const [text, setText] = useState('');
  const [matches, setMatches] = useState<CustomerMatch[]>([]);
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const [status, setStatus] = useState('');
  const listId = `${control.id}-list`;
  const optionId = (index: number) => `${listId}-${index}`;

  useEffect(() => {
    const q = text.trim();
    if (chosen && q === chosen.username) return;
    if (q.length < MIN_QUERY) {
      setMatches([]);
      setOpen(false);
      setStatus('');
      return;
    }
    // An answer to an earlier text, arriving late, is dropped.
    let current = true;
    const timer = setTimeout(() => {
      ok(api.GET('/v1/users/customers', { params: { query: { q } } })).then(
        ({ customers }) => {
          if (!current) return;
          setMatches(customers);
          setActive(-1);
          setOpen(customers.length > 0);
          setStatus(
            customers.length === 0
              ? `No customer’s username starts with “${q}”, and none has it as address.`
              : `${customers.length} ${customers.length === 1 ? 'customer' : 'customers'} found: choose one with the arrow keys and Enter.`,
          );
        },
        (error: unknown) => {
          if (!current) return;
          setMatches([]);
          setOpen(false);
          setStatus(messageOf(error));
        },
      );
    }, SEARCH_DELAY_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [text, chosen]);

  const choose = (customer: CustomerMatch) => {
    onChoose(customer);
    setText(customer.username);
    setOpen(false);
    setStatus(`Chosen: ${customer.username} (user ${customer.id}).`);
  };

  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      if (matches.length === 0) return;
      event.preventDefault();
      setOpen(true);
      const step = event.key === 'ArrowDown' ? 1 : -1;
      setActive((index) => (index + step + matches.length) % matches.length);
    } else if (event.key === 'Enter' && open && active >= 0) {
      // Chooses instead of sending the form.
      event.preventDefault();
      choose(matches[active]);
    } else if (event.key === 'Escape' && open) {
      event.preventDefault();
      setOpen(false);
    }
  };

  return (
    <div class="combobox">
      <input
        id={control.id}
        aria-invalid={control['aria-invalid']}
        aria-describedby={control['aria-describedby']}
        type="text"
        role="combobox"
        aria-autocomplete="list"
        aria-expanded={open}
        aria-controls={listId}
        aria-activedescendant={open && active >= 0 ? optionId(active) : undefined}
        autocomplete="off"
        spellcheck={false}
        value={text}
        onInput={(event) => {
          setText(event.currentTarget.value);
          if (chosen) onChoose(undefined);
        }}
        onKeyDown={onKeyDown}
        onBlur={() => setOpen(false)}
      />
      <ul id={listId} role="listbox" aria-label="Customers" class="combobox-list" hidden={!open}>
        {matches.map((customer, index) => (
          <li
            key={customer.id}
            id={optionId(index)}
            role="option"
            aria-selected={index === active}
            // Before the input's blur, which would close the list under the pointer.
            onMouseDown={(event) => {
              event.preventDefault();
              choose(customer);
            }}
          >
            {customer.username} <span class="combobox-id">user {customer.id}</span>
          </li>
        ))}
      </ul>
      <p class="hint" role="status">
        {status}
      </p>
    </div>
  );
}
