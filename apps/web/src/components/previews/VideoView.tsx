/**
 * A video, streamed, with its first frame as the poster (made in the browser, ../../lib/frames)
 * so a picture shows before it plays.
 */
import { useEffect, useState } from 'react';
import { videoFrame } from '../../lib/frames';

export default function VideoView({ url, download }: { url: string; download: boolean }) {
  const [poster, setPoster] = useState<string | undefined>();
  useEffect(() => {
    let live = true;
    let made: string | undefined;
    videoFrame(url, 1280).then(
      (blob) => {
        if (!live) return;
        made = URL.createObjectURL(blob);
        setPoster(made);
      },
      () => {
        // No poster (the frame could not be read): the player shows what it loads itself.
      },
    );
    return () => {
      live = false;
      if (made) URL.revokeObjectURL(made);
    };
  }, [url]);
  return (
    // biome-ignore lint/a11y/useMediaCaption: user files come without captions.
    <video
      src={url}
      poster={poster}
      controls
      preload="metadata"
      controlsList={download ? undefined : 'nodownload'}
    />
  );
}
